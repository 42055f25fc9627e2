#include "gemm/pair_order.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "gemm/pair_clipping.h"

namespace qtune::detail {
namespace {

// No partner chosen yet (pair_greedily).
constexpr std::size_t kNone = ~std::size_t{0};

// For each two rows of a window, the columns whose weights of the two cannot share a pair.
class WindowCosts {
 public:
  // Rows [first, first + rows) of `weights`; index `rows` stands for a padding row when rows is odd.
  WindowCosts(const std::int8_t* weights, std::size_t n, std::size_t first, std::size_t rows)
      : size_(rows + rows % 2), cost_(size_ * size_, 0) {
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = i + 1; j < rows; ++j) {
        cost_[i * size_ + j] = cost_[j * size_ + i] =
            unsafe_weight_columns(weights + (first + i) * n, weights + (first + j) * n, n);
      }
    }
  }
  std::size_t size() const { return size_; }
  std::size_t operator()(std::size_t i, std::size_t j) const { return cost_[i * size_ + j]; }
  std::size_t of(const std::vector<std::size_t>& pairs) const {
    std::size_t sum = 0;
    for (std::size_t p = 0; p < pairs.size(); p += 2) sum += (*this)(pairs[p], pairs[p + 1]);
    return sum;
  }

 private:
  std::size_t size_;
  std::vector<std::size_t> cost_;
};

// A pairing of the window's rows (positions 2i, 2i+1 of the result): greedy, the row with the
// most unsafe partners first taking its cheapest partner, then pairs of pairs re-paired while
// that lowers the cost.
std::vector<std::size_t> pair_greedily(const WindowCosts& cost) {
  const std::size_t size = cost.size();
  std::vector<std::size_t> risk(size, 0), by_risk(size);
  for (std::size_t i = 0; i < size; ++i) {
    for (std::size_t j = 0; j < size; ++j) risk[i] += cost(i, j);
  }
  std::iota(by_risk.begin(), by_risk.end(), std::size_t{0});
  std::stable_sort(by_risk.begin(), by_risk.end(), [&](std::size_t a, std::size_t b) { return risk[a] > risk[b]; });
  std::vector<bool> paired(size, false);
  std::vector<std::size_t> pairs;
  for (const std::size_t i : by_risk) {
    if (paired[i]) continue;
    paired[i] = true;
    std::size_t best = kNone;
    for (std::size_t j = 0; j < size; ++j) {
      if (!paired[j] && (best == kNone || cost(i, j) < cost(i, best))) best = j;
    }
    paired[best] = true;
    pairs.push_back(i);
    pairs.push_back(best);
  }
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t p = 0; p < pairs.size(); p += 2) {
      for (std::size_t q = p + 2; q < pairs.size(); q += 2) {
        const std::size_t a = pairs[p], b = pairs[p + 1], c = pairs[q], d = pairs[q + 1];
        const std::size_t now = cost(a, b) + cost(c, d);
        if (cost(a, c) + cost(b, d) < now) {
          pairs[p + 1] = c, pairs[q] = b;
          improved = true;
        } else if (cost(a, d) + cost(b, c) < now) {
          pairs[p + 1] = d, pairs[q + 1] = b;
          improved = true;
        }
      }
    }
  }
  return pairs;
}

}  // namespace

std::size_t unsafe_weight_pairs(const std::int8_t* weights, std::size_t k, std::size_t n,
                                const std::vector<std::uint8_t>& order) {
  const auto row = [&](std::size_t p) { return p < order.size() ? pair_order_row(order.data(), p) : p; };
  std::size_t unsafe = 0;
  for (std::size_t p = 0; p < k; p += 2) {
    const std::size_t r0 = row(p), r1 = row(p + 1);
    // A row past k holds zeros, and every weight pairs exactly with 0.
    if (r0 < k && r1 < k) unsafe += unsafe_weight_columns(weights + r0 * n, weights + r1 * n, n);
  }
  return unsafe;
}

std::vector<std::uint8_t> choose_pair_order(const std::int8_t* weights, std::size_t k, std::size_t n,
                                            std::size_t positions) {
  if (positions < k) throw std::logic_error("choose_pair_order: fewer positions than rows");
  std::vector<std::uint8_t> order(positions);
  for (std::size_t p = 0; p < order.size(); ++p) order[p] = static_cast<std::uint8_t>(p % kPairWindowBytes);
  bool reordered = false;
  for (std::size_t first = 0; first < k; first += kPairWindowBytes) {
    const std::size_t rows = std::min(kPairWindowBytes, k - first);
    const WindowCosts cost(weights, n, first, rows);
    std::vector<std::size_t> given(cost.size());
    std::iota(given.begin(), given.end(), std::size_t{0});
    std::vector<std::size_t> pairs = pair_greedily(cost);
    if (cost.of(pairs) >= cost.of(given)) continue;
    // Where rows is odd, the pair holding the padding row goes last, its real row at the window's
    // last real position (its partner, the next position, is past k).
    for (std::size_t p = 0; p < pairs.size(); p += 2) {
      if (pairs[p] == rows) std::swap(pairs[p], pairs[p + 1]);
      if (pairs[p + 1] == rows) {
        std::rotate(pairs.begin() + static_cast<std::ptrdiff_t>(p), pairs.begin() + static_cast<std::ptrdiff_t>(p + 2),
                    pairs.end());
        break;
      }
    }
    for (std::size_t p = 0; p < rows; ++p) order[first + p] = static_cast<std::uint8_t>(pairs[p]);
    reordered = true;
  }
  if (!reordered) return {};
  return order;
}

}  // namespace qtune::detail
