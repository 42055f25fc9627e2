// The `i8mm` GEMM family (Armv8.6 matrix multiply, optional from Armv8.2): usmmla multiplies a
// 2x8 u8 block of A by an 8x2 s8 block of B into a 2x2 int32 block, 32 exact MACs per
// instruction. A k group is kr = 8 values, so the packed layouts of gemm_ukernel.h line up with
// the operands directly: 16 bytes of an A panel are rows 2p, 2p+1 x 8 k, 16 bytes of a B panel are
// columns 2q, 2q+1 x 8 k. usmmla takes u8 activations and s8 weights as they are packed
// (PackedA::u8, s8 inputs flipped with ^0x80 by the packer), so no in-kernel flip and no extra
// compensation (smmla / ummla would need one operand re-signed).
// The accumulators are 2x2 blocks (i8mm_layout.h); an 8x12 tile is 4 x 6 blocks = 24 registers.
#include <arm_neon.h>

#include "arm/gemm_arm_tile.h"
#include "arm/i8mm/i8mm_layout.h"

namespace qtune::detail {
namespace {

template <int MR, int NR>
struct I8mmCore {
  static constexpr Isa kIsa = Isa::i8mm;
  static constexpr int kMr = MR, kNr = NR, kKr = 8;
  static constexpr PackedA kAFormat = PackedA::u8;
  static constexpr PackedB kBFormat = PackedB::s8;
  static constexpr int kRowPairs = MR / 2, kColPairs = NR / 2;
  using Acc = arm::I8mmBlocks<MR, NR>;

  static void zero(Acc& acc) {
    for (auto& row : acc.block) {
      for (auto& b : row) b = vdupq_n_s32(0);
    }
  }
  static void to_rows(const Acc& acc, arm::RowTile<MR, NR / 4>& rows) { arm::i8mm_blocks_to_rows(acc, rows.v); }
  static void from_rows(const arm::RowTile<MR, NR / 4>& rows, Acc& acc) { arm::i8mm_rows_to_blocks(rows.v, acc); }

  static void load_b(const std::uint8_t* b, int8x16_t (&out)[kColPairs]) {
    for (int q = 0; q < kColPairs; ++q) out[q] = vld1q_s8(reinterpret_cast<const std::int8_t*>(b) + 16 * q);
  }

  static inline void step(Acc& acc, int p, uint8x16_t a, const int8x16_t (&b)[kColPairs]) {
    for (int q = 0; q < kColPairs; ++q) acc.block[p][q] = vusmmlaq_s32(acc.block[p][q], a, b[q]);
  }

  static void accumulate_packed(Acc& acc, const GemmUkernelArgs& args) {
    const auto* a = static_cast<const std::uint8_t*>(args.a_packed);
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, a += 8 * MR, b += 8 * NR) {
      int8x16_t bv[kColPairs];
      load_b(b, bv);
      for (int p = 0; p < kRowPairs; ++p) step(acc, p, vld1q_u8(a + 16 * p), bv);
    }
  }

  static void accumulate_in_place(Acc& acc, const GemmUkernelArgs& args) {
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, b += 8 * NR) {
      int8x16_t bv[kColPairs];
      load_b(b, bv);
      const std::size_t valid = arm::group_bytes(args, g, kKr);
      for (int p = 0; p < kRowPairs; ++p) {
        std::uint8_t pair[16];
        arm::load_group<8>(pair, args.a_rows[2 * p] + 8 * g, valid, args.a_flip);
        arm::load_group<8>(pair + 8, args.a_rows[2 * p + 1] + 8 * g, valid, args.a_flip);
        step(acc, p, vld1q_u8(pair), bv);
      }
    }
  }
};

constexpr GemmUkernel kI8mmUkernels[] = {
    arm::make_arm_gemm_ukernel<I8mmCore<4, 4>>("qu8s8-gemm-4x4c8-i8mm"),
    arm::make_arm_gemm_ukernel<I8mmCore<4, 8>>("qu8s8-gemm-4x8c8-i8mm"),
    arm::make_arm_gemm_ukernel<I8mmCore<8, 8>>("qu8s8-gemm-8x8c8-i8mm"),
    arm::make_arm_gemm_ukernel<I8mmCore<8, 12>>("qu8s8-gemm-8x12c8-i8mm"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_i8mm() { return kI8mmUkernels; }

}  // namespace qtune::detail
