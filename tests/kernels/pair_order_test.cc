// gemm/pair_order.h: the k order within windows of 16 that the byte families pack A and B in, so
// that fewer weight pairs clip (the GEMM and convolution tests of pair_clipping_test.cc run it
// through every way A is packed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/src/gemm/pair_order.h"

namespace qtune::detail {
namespace {

// Each window's real rows are a permutation of themselves, and every position past k stays put.
void expect_order_within_windows(const std::vector<std::uint8_t>& order, std::size_t k, std::size_t positions) {
  ASSERT_EQ(order.size(), positions);
  for (std::size_t first = 0; first < positions; first += kPairWindowBytes) {
    const std::size_t real = first < k ? std::min(kPairWindowBytes, k - first) : 0;
    std::vector<std::uint8_t> rows(order.begin() + static_cast<std::ptrdiff_t>(first),
                                   order.begin() + static_cast<std::ptrdiff_t>(first + real));
    std::sort(rows.begin(), rows.end());
    for (std::size_t i = 0; i < real; ++i) EXPECT_EQ(rows[i], i) << "window at " << first;
    for (std::size_t p = first + real; p < std::min(positions, first + kPairWindowBytes); ++p) {
      EXPECT_EQ(order[p], p - first) << "position " << p << " past k " << k;
    }
  }
}

TEST(PairOrder, PairsLargeWeightsOfOneSignWithPartnersOfTheOther) {
  // Given: (127, 100) and (-100, -127) both clip; (127, -100) and (100, -127) neither.
  const std::vector<std::int8_t> w = {127, 100, -100, -127};
  EXPECT_EQ(unsafe_weight_pairs(w.data(), 4, 1, {}), 2u);
  const std::vector<std::uint8_t> order = choose_pair_order(w.data(), 4, 1, 32);
  expect_order_within_windows(order, 4, 32);
  EXPECT_EQ(unsafe_weight_pairs(w.data(), 4, 1, order), 0u);
}

TEST(PairOrder, AnOddRowCountPairsTheLastRealPositionWithPadding) {
  // Two 127s cannot meet; with k = 3 one of them goes last, beside a padding position (weight 0).
  const std::vector<std::int8_t> w = {127, 127, -5};
  EXPECT_EQ(unsafe_weight_pairs(w.data(), 3, 1, {}), 1u);
  const std::vector<std::uint8_t> order = choose_pair_order(w.data(), 3, 1, 32);
  expect_order_within_windows(order, 3, 32);
  EXPECT_EQ(unsafe_weight_pairs(w.data(), 3, 1, order), 0u);
  EXPECT_EQ(w[order[2]], 127);
}

TEST(PairOrder, NothingToGainKeepsTheGivenOrder) {
  std::vector<std::int8_t> small(40 * 7);
  std::mt19937 rng(3);
  for (auto& v : small) v = static_cast<std::int8_t>(static_cast<int>(rng() % 129) - 64);
  EXPECT_EQ(unsafe_weight_pairs(small.data(), 40, 7, {}), 0u);
  EXPECT_TRUE(choose_pair_order(small.data(), 40, 7, 64).empty());
  EXPECT_THROW(choose_pair_order(small.data(), 40, 7, 32), std::logic_error);
}

TEST(PairOrder, NeverClipsMoreThanTheGivenOrder) {
  std::mt19937 rng(7);
  for (const std::size_t k : {2u, 15u, 16u, 17u, 33u, 144u, 301u}) {
    for (const std::size_t n : {1u, 8u, 24u, 96u}) {
      std::vector<std::int8_t> w(k * n);
      for (auto& v : w) v = static_cast<std::int8_t>(rng());
      const std::size_t positions = (k + 31) / 32 * 32;
      const std::vector<std::uint8_t> order = choose_pair_order(w.data(), k, n, positions);
      const std::size_t given = unsafe_weight_pairs(w.data(), k, n, {});
      if (order.empty()) continue;
      expect_order_within_windows(order, k, positions);
      EXPECT_LT(unsafe_weight_pairs(w.data(), k, n, order), given) << k << "x" << n;
    }
  }
}

}  // namespace
}  // namespace qtune::detail
