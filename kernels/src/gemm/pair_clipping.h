// Exact products from a saturating instruction. vpmaddubsw multiplies u8 activations by s8 weights
// and adds adjacent products into int16 with saturation: a0*b0 + a1*b1 is exact for every a in
// [0, 255] only when the weights' positive parts sum to at most 128 and their negative parts too
// (255 * 128 = 32640 <= 32767; 255 * 129 = 32895). Weights are known when a layer is prepared, so a
// family built on vpmaddubsw (GemmUkernel::clips_pairs) packs B as usual, then clips the larger
// weight of every pair that could saturate down to the limit and keeps what it removed, the
// excess. The microkernels then multiply only safe pairs, and what the clipping removed comes back
// before the epilogue: where few weights clip (trained networks: about two per output channel, most
// weights are small), the driver multiplies each excess by its activation for the rows of a call
// (GemmUkernelArgs::corrections); where many do, the excesses form panels of their own, one
// nonzero weight a pair, that the microkernel multiplies in a second walk over A
// (GemmUkernelArgs::b_excess). The sum is the exact dot product whatever the weights; only the
// speed depends on how many pairs clip. Where A is packed, fewer do: the pairs are first chosen
// within windows of 16 k (gemm/pair_order.h) and B and the packed A take that k order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gemm/gemm_ukernel.h"

namespace qtune::detail {

// Whether u8 x s8 products of the weight pair (b0, b1) always sum within int16: whether their
// positive parts sum to at most 128 and their negative parts too. Weights of opposite signs always
// do (each part is one weight) and sum within [-128, 127]; weights of one sign sum to their common
// part. So the pair is exact exactly where b0 + b1 lies in [-128, 128]: one comparison, which the
// compiler vectorizes where every two rows of a window are compared over all columns (pair_order.cc).
constexpr bool weight_pair_is_exact(int b0, int b1) {
  const int sum = b0 + b1;
  return sum >= -128 && sum <= 128;
}

// The columns where weights row0[c] and row1[c] (n of each) are not an exact pair. Counted in 32
// bits, not size_t's 64: twice the lanes per vector where the loop vectorizes.
inline std::size_t unsafe_weight_columns(const std::int8_t* row0, const std::int8_t* row1, std::size_t n) {
  std::uint32_t unsafe = 0;
  for (std::size_t c = 0; c < n; ++c) unsafe += weight_pair_is_exact(row0[c], row1[c]) ? 0u : 1u;
  return unsafe;
}

class PairClipping {
 public:
  PairClipping() = default;
  // Clips the weight pairs of the packed B panels of `uk`'s format for a K x N problem
  // (gemm_b_panel_bytes each, from `packed`) in place. The column terms are left as they are: they
  // were computed from the weights as given, which the clipped weights and the excesses add up to.
  // With `reorder_k` (A is packed, in K blocks of whole windows), B's k are first put in the order
  // of choose_pair_order, which the A packer must then take (k_order()).
  PairClipping(const GemmUkernel& uk, std::uint8_t* packed, std::size_t k, std::size_t n, bool reorder_k = false);

  // The k order B was packed in (choose_pair_order's, for 8 groups past k groups rounded up to 8:
  // the packer's 32-byte reads from any K block's first group), or null where it is K's own.
  // Excesses count k in this order.
  const std::uint8_t* k_order() const { return k_order_.empty() ? nullptr : k_order_.data(); }

  // The excesses of panel `panel` at k in [k_begin, k_end), in k order.
  std::span<const ClippedWeight> in_panel(std::size_t panel, std::size_t k_begin, std::size_t k_end) const;
  std::size_t size() const { return weights_.size(); }

  // Where more than this share of the weights clip, the excesses go to panels of their own that
  // the microkernel multiplies in a second walk over A (GemmUkernelArgs::b_excess): about as long
  // as the first, but cheaper than the driver's scalar product per clipped weight and row of A
  // (about two cycles each against 64 multiply-adds in three vector micro-ops on two ports).
  static constexpr double kDenseShare = 1.0 / 84;
  bool dense() const { return !excess_lines_.empty(); }
  // Dense: the excess panel of B panel `panel`, the weight layout of a B panel ([k_groups][nr_stride]
  // [kr] int8), 64-byte aligned.
  const std::int8_t* excess_panel(std::size_t panel) const {
    return reinterpret_cast<const std::int8_t*>(excess_lines_.data()) + panel * excess_panel_bytes_;
  }

 private:
  std::vector<std::uint8_t> k_order_;
  std::vector<ClippedWeight> weights_;     // panel by panel, each in k order
  std::vector<std::size_t> panel_begin_;   // panels + 1 offsets into weights_
  struct alignas(64) Line {
    std::int8_t bytes[64];
  };
  std::vector<Line> excess_lines_;         // dense: the excess panels, back to back
  std::size_t excess_panel_bytes_ = 0;
};

}  // namespace qtune::detail
