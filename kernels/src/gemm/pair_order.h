// Which k meet in a vpmaddubsw pair. The instruction adds the products of k positions 2i and 2i + 1,
// and a pair saturates only where both weights of one column share a sign and are large
// (weight_pair_is_exact): trained weights hold about one such weight per output channel, and
// whether it clips depends only on which weight it is paired with. Where A is packed, the packer
// can put the bytes of a window of 16 k in any order for one byte shuffle per 16 bytes, so the
// pairs are chosen per window, for all columns of the layer at once, to clip as few weights as
// it can; B is packed in the same order, and the sums do not change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qtune::detail {

// The bytes of A one shuffle reorders (an SSE/AVX2 vpshufb lane).
inline constexpr std::size_t kPairWindowBytes = 16;

// The row of K that `position` holds under a pair order (choose_pair_order's; null: K's own).
constexpr std::size_t pair_order_row(const std::uint8_t* order, std::size_t position) {
  return order == nullptr ? position : position / kPairWindowBytes * kPairWindowBytes + order[position];
}

// The number of weights clipping would change in the columns of `weights` (k rows of n, row-major)
// with k paired as `order` says (order[p] is the row at position p; pairs are positions (2i, 2i+1);
// a position at or past k holds a zero weight).
std::size_t unsafe_weight_pairs(const std::int8_t* weights, std::size_t k, std::size_t n,
                                const std::vector<std::uint8_t>& order);

// A k order for `weights` (k rows of n, row-major) that moves rows only within windows of
// kPairWindowBytes: order[p] = the row (within p's window) that position p holds, for positions
// [0, positions), positions >= k. A window's real rows stay at its first min(16, k - start)
// positions (where k is odd, the last real position pairs with padding); past k, order[p] = p. No
// window's pairs clip more weights than in the given order. Empty when the order chosen is the
// given one everywhere.
std::vector<std::uint8_t> choose_pair_order(const std::int8_t* weights, std::size_t k, std::size_t n,
                                            std::size_t positions);

}  // namespace qtune::detail
