// The `neon` GEMM family (Armv8.0 Advanced SIMD, runs on every aarch64 CPU): smull multiplies 8
// int8 pairs into exact int16 products (|a * b| <= 128 * 128), sadalp adds adjacent product pairs
// into the int32 accumulators. smlal (accumulating two products in int16) would save an
// instruction but overflows for (-128) * (-128) * 2, so it is not bit-exact and is not used.
// Activations are packed as s8 (PackedA::s8: u8 inputs flipped with ^0x80, compensated through
// the column sums). Two layouts of the same arithmetic:
// - c2 (NeonCore): a k group is 2 values; a B vector holds 4 columns x 2 k, the A pair of a row is
//   broadcast to it, so the accumulators are the rows of C. Each row's broadcast is one more
//   vector instruction per 4 smull + sadalp pairs, and the 8-row tiles run out of registers.
// - c8 (NeonC8Core, XNNPACK's c8 "mull" layout): a k group is 8 values; a row's group and a
//   column's group are one 8-byte vector each, multiplied with no broadcast, into one accumulator
//   per (row, column) whose 4 lanes hold partial sums added together once, after the k loop. The
//   loop issues only loads, smull and sadalp (docs/arm-static-analysis.md).
#include <arm_neon.h>

#include "arm/gemm_arm_tile.h"

namespace qtune::detail {
namespace {

template <int MR, int NR>
struct NeonCore : arm::RowMajorLayout<MR, NR / 4> {
  static constexpr Isa kIsa = Isa::neon;
  static constexpr int kMr = MR, kNr = NR, kKr = 2, kVecs = NR / 4;
  static constexpr PackedA kAFormat = PackedA::s8;
  static constexpr PackedB kBFormat = PackedB::s8;
  using Acc = arm::RowTile<MR, kVecs>;

  // acc[i] += sum over the group of a[t] * b[column][t], for the 4 x kVecs columns.
  static inline void step(Acc& acc, int i, std::uint16_t a_pair, const int8x8_t (&b)[kVecs]) {
    const int8x8_t a = vreinterpret_s8_u16(vdup_n_u16(a_pair));
    for (int j = 0; j < kVecs; ++j) acc.v[i][j] = vpadalq_s16(acc.v[i][j], vmull_s8(a, b[j]));
  }

  static void load_b(const std::uint8_t* b, int8x8_t (&out)[kVecs]) {
    for (int j = 0; j < kVecs; ++j) out[j] = vld1_s8(reinterpret_cast<const std::int8_t*>(b) + 8 * j);
  }

  static void accumulate_packed(Acc& acc, const GemmUkernelArgs& args) {
    const auto* a = static_cast<const std::uint8_t*>(args.a_packed);
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, a += 2 * MR, b += 8 * kVecs) {
      int8x8_t bv[kVecs];
      load_b(b, bv);
      for (int i = 0; i < MR; ++i) {
        std::uint16_t pair;
        std::memcpy(&pair, a + 2 * i, sizeof(pair));
        step(acc, i, pair, bv);
      }
    }
  }

  static void accumulate_in_place(Acc& acc, const GemmUkernelArgs& args) {
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, b += 8 * kVecs) {
      int8x8_t bv[kVecs];
      load_b(b, bv);
      const std::size_t valid = arm::group_bytes(args, g, kKr);
      for (int i = 0; i < MR; ++i) {
        std::uint8_t bytes[2];
        arm::load_group<2>(bytes, args.a_rows[i] + 2 * g, valid, args.a_flip);
        std::uint16_t pair;
        std::memcpy(&pair, bytes, sizeof(pair));
        step(acc, i, pair, bv);
      }
    }
  }
};

}  // namespace

// The c8 tiles' descriptors (gemm_neon_c8.cc).
GemmUkernel neon_gemm_2x8c8_ukernel();
GemmUkernel neon_gemm_2x12c8_ukernel();

std::span<const GemmUkernel> gemm_ukernels_neon() {
  // A function-local table: the c8 descriptors come from another translation unit, so they are not
  // constant expressions here.
  static const GemmUkernel kNeonUkernels[] = {
      arm::make_arm_gemm_ukernel<NeonCore<4, 4>>("qs8-gemm-4x4c2-neon-mull"),
      arm::make_arm_gemm_ukernel<NeonCore<4, 8>>("qs8-gemm-4x8c2-neon-mull"),
      arm::make_arm_gemm_ukernel<NeonCore<8, 8>>("qs8-gemm-8x8c2-neon-mull"),
      arm::make_arm_gemm_ukernel<NeonCore<8, 12>>("qs8-gemm-8x12c2-neon-mull"),
      neon_gemm_2x8c8_ukernel(),
      neon_gemm_2x12c8_ukernel(),
  };
  return kNeonUkernels;
}

}  // namespace qtune::detail
