#include "gemm/pair_clipping.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gemm/pair_order.h"
#include "qtune/kernels/gemm.h"

namespace qtune::detail {
namespace {

// The larger weight of an unsafe pair, clipped so that the pair's sum of that sign is 128 (the
// other weight, the smaller, is left as it is; one clip always suffices since |b| <= 128).
void clip_pair(std::int8_t& b0, std::int8_t& b1, std::uint32_t k0, std::uint16_t column,
               std::vector<ClippedWeight>& out) {
  if (weight_pair_is_exact(b0, b1)) return;
  const bool first_larger = (b0 < 0 ? -b0 : b0) >= (b1 < 0 ? -b1 : b1);
  std::int8_t& large = first_larger ? b0 : b1;
  const int other = first_larger ? b1 : b0;  // same sign as `large`: only then is a pair unsafe
  const int limit = large > 0 ? 128 - other : -128 - other;
  out.push_back({k0 + (first_larger ? 0u : 1u), column, static_cast<std::int16_t>(large - limit)});
  large = static_cast<std::int8_t>(limit);
}

// Puts the k of every packed B column in the pair order `order` (choose_pair_order).
void reorder_packed_k(const GemmUkernel& uk, std::uint8_t* packed, std::size_t k, std::size_t n,
                      std::vector<std::uint8_t>& order) {
  const auto nr = static_cast<std::size_t>(uk.nr), nr_stride = static_cast<std::size_t>(uk.nr_stride),
             kr = static_cast<std::size_t>(uk.kr);
  const std::size_t k_groups = (k + kr - 1) / kr, panels = (n + nr - 1) / nr;
  const std::size_t panel_bytes = gemm_b_panel_bytes(uk, k_groups);
  const auto at = [&](std::int8_t* w, std::size_t kk, std::size_t j) -> std::int8_t& {
    return w[(kk / kr * nr_stride + j) * kr + kk % kr];
  };
  // The weights as a K x N matrix, to choose the order from.
  std::vector<std::int8_t> matrix(k * n);
  for (std::size_t p = 0; p < panels; ++p) {
    auto* w = reinterpret_cast<std::int8_t*>(packed + p * panel_bytes + gemm_b_panel_weights_offset(uk));
    for (std::size_t j = 0; j < nr && p * nr + j < n; ++j) {
      for (std::size_t kk = 0; kk < k; ++kk) matrix[kk * n + p * nr + j] = at(w, kk, j);
    }
  }
  // The packer reads the order 8 groups at a time from a K block's first group, which may be 4
  // groups short of a multiple of 8: positions for 8 groups past k_groups rounded up to 8.
  order = choose_pair_order(matrix.data(), k, n, ((k_groups + 7) / 8 + 1) * 8 * kr);
  if (order.empty()) return;
  for (std::size_t p = 0; p < panels; ++p) {
    auto* w = reinterpret_cast<std::int8_t*>(packed + p * panel_bytes + gemm_b_panel_weights_offset(uk));
    for (std::size_t j = 0; j < nr && p * nr + j < n; ++j) {
      for (std::size_t kk = 0; kk < k; ++kk) {
        at(w, kk, j) = matrix[pair_order_row(order.data(), kk) * n + p * nr + j];
      }
    }
  }
}

}  // namespace

PairClipping::PairClipping(const GemmUkernel& uk, std::uint8_t* packed, std::size_t k, std::size_t n,
                           bool reorder_k) {
  if (uk.b_format != PackedB::s8 || uk.kr % 2 != 0) {
    throw std::logic_error(std::string("pair clipping: ") + uk.name + " does not pack int8 pairs");
  }
  const auto nr = static_cast<std::size_t>(uk.nr), nr_stride = static_cast<std::size_t>(uk.nr_stride),
             kr = static_cast<std::size_t>(uk.kr);
  const std::size_t k_groups = (k + kr - 1) / kr, panels = (n + nr - 1) / nr;
  const std::size_t panel_bytes = gemm_b_panel_bytes(uk, k_groups);
  if (reorder_k) reorder_packed_k(uk, packed, k, n, k_order_);
  panel_begin_.reserve(panels + 1);
  for (std::size_t p = 0; p < panels; ++p) {
    panel_begin_.push_back(weights_.size());
    auto* w = reinterpret_cast<std::int8_t*>(packed + p * panel_bytes + gemm_b_panel_weights_offset(uk));
    for (std::size_t g = 0; g < k_groups; ++g) {
      for (std::size_t j = 0; j < nr_stride; ++j) {
        std::int8_t* group = w + (g * nr_stride + j) * kr;
        for (std::size_t t = 0; t < kr; t += 2) {
          clip_pair(group[t], group[t + 1], static_cast<std::uint32_t>(g * kr + t), static_cast<std::uint16_t>(j),
                    weights_);
        }
      }
    }
    // In k order within the panel (the loop above goes column by column within a group).
    std::stable_sort(weights_.begin() + static_cast<std::ptrdiff_t>(panel_begin_.back()), weights_.end(),
                     [](const ClippedWeight& a, const ClippedWeight& b) { return a.k < b.k; });
  }
  panel_begin_.push_back(weights_.size());

  if (static_cast<double>(weights_.size()) <= kDenseShare * static_cast<double>(k * n)) return;
  excess_panel_bytes_ = (k_groups * nr_stride * kr + 63) / 64 * 64;
  excess_lines_.assign(panels * excess_panel_bytes_ / 64, Line{});
  for (std::size_t p = 0; p < panels; ++p) {
    std::int8_t* panel = reinterpret_cast<std::int8_t*>(excess_lines_.data()) + p * excess_panel_bytes_;
    for (const ClippedWeight& w : in_panel(p, 0, k)) {
      panel[(w.k / kr * nr_stride + w.column) * kr + w.k % kr] = static_cast<std::int8_t>(w.excess);
    }
  }
}

std::span<const ClippedWeight> PairClipping::in_panel(std::size_t panel, std::size_t k_begin,
                                                      std::size_t k_end) const {
  if (panel + 1 >= panel_begin_.size()) return {};
  const auto first = weights_.begin() + static_cast<std::ptrdiff_t>(panel_begin_[panel]);
  const auto last = weights_.begin() + static_cast<std::ptrdiff_t>(panel_begin_[panel + 1]);
  const auto by_k = [](const ClippedWeight& w, std::size_t k) { return w.k < k; };
  const auto begin = std::lower_bound(first, last, k_begin, by_k);
  const auto end = std::lower_bound(begin, last, k_end, by_k);
  return {begin, end};
}

}  // namespace qtune::detail

namespace qtune {

bool isa_clips_weight_pairs(Isa isa) { return isa == Isa::avx2ubsw || isa == Isa::avx512ubsw; }

std::optional<Isa> pair_clipping_twin(Isa isa) {
  if (isa == Isa::avx2) return Isa::avx2ubsw;
  if (isa == Isa::avx512bw) return Isa::avx512ubsw;
  return std::nullopt;
}

double clipped_weight_pair_share(const std::int8_t* b, std::size_t k, std::size_t n, std::size_t ldb) {
  const std::size_t pairs = k / 2 * n;
  if (pairs == 0) return 0.0;
  std::size_t clipped = 0;
  for (std::size_t kk = 0; kk + 1 < k; kk += 2) {
    clipped += detail::unsafe_weight_columns(b + kk * ldb, b + (kk + 1) * ldb, n);
  }
  return static_cast<double>(clipped) / static_cast<double>(pairs);
}

}  // namespace qtune
