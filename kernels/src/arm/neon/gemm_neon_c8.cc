// The neon family's c8 tiles (gemm_neon.cc says how c8 differs from c2), in a translation unit of
// their own because they are compiled without GCC's first instruction-scheduling pass
// (-fno-schedule-insns, kernels/CMakeLists.txt): that pass moved every smull of a k group ahead of
// the sadalp that consume them, 16 products live beside 16 accumulators and 10 operands, and the
// register allocator spilled inside the k-loop. In source order each product is consumed at once.
// Also without cross-jumping (-fno-crossjumping): GCC merged the modes' identical finishing code
// (narrow, clamp, store) into one tail that each mode jumps to, which left llvm-mca's epilogue
// regions (scripts/arm-mca.py) without their stores; each mode now runs straight through.
#include <arm_neon.h>

#include "arm/gemm_arm_tile.h"

namespace qtune::detail {
namespace {

// One int32x4 accumulator per (row, column) of the tile: lanes are partial sums of its k.
template <int MR, int NR>
struct PairAccumulators {
  int32x4_t v[MR][NR];
};

template <int MR, int NR>
struct NeonC8Core {
  static constexpr Isa kIsa = Isa::neon;
  static constexpr int kMr = MR, kNr = NR, kKr = 8, kVecs = NR / 4;
  static constexpr PackedA kAFormat = PackedA::s8;
  static constexpr PackedB kBFormat = PackedB::s8;
  using Acc = PairAccumulators<MR, NR>;
  using Rows = arm::RowTile<MR, kVecs>;

  static void zero(Acc& acc) {
    for (int i = 0; i < MR; ++i) {
      for (int c = 0; c < NR; ++c) acc.v[i][c] = vdupq_n_s32(0);
    }
  }

  // Columns 4j .. 4j+3 of row i: each accumulator's four lanes summed (two rounds of addp).
  static void to_rows(const Acc& acc, Rows& rows) {
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < kVecs; ++j) {
        const int32x4_t* a = &acc.v[i][4 * j];
        rows.v[i][j] = vpaddq_s32(vpaddq_s32(a[0], a[1]), vpaddq_s32(a[2], a[3]));
      }
    }
  }

  // A partial sum of an earlier K block goes to lane 0 of its accumulator.
  static void from_rows(const Rows& rows, Acc& acc) {
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < kVecs; ++j) {
        const int32x4_t r = rows.v[i][j];
        acc.v[i][4 * j + 0] = vsetq_lane_s32(vgetq_lane_s32(r, 0), vdupq_n_s32(0), 0);
        acc.v[i][4 * j + 1] = vsetq_lane_s32(vgetq_lane_s32(r, 1), vdupq_n_s32(0), 0);
        acc.v[i][4 * j + 2] = vsetq_lane_s32(vgetq_lane_s32(r, 2), vdupq_n_s32(0), 0);
        acc.v[i][4 * j + 3] = vsetq_lane_s32(vgetq_lane_s32(r, 3), vdupq_n_s32(0), 0);
      }
    }
  }

  // Registers in flight beside the MR x NR accumulators and MR rows of A: the products of kLag + 1
  // columns and kAhead + 1 columns of B. Where they fit, products wait two columns before they are
  // accumulated and B is loaded three columns before its multiplies, so that an in-order core
  // (Cortex-A55) issues neither sadalp nor smull before its operand is ready; otherwise (2x12) one
  // column and none, which fills the 32 registers.
  static constexpr int kDeepLag = 2, kDeepAhead = 3;
  static constexpr bool kDeep = MR * NR + MR + MR * (kDeepLag + 1) + kDeepAhead + 1 <= 32;
  static constexpr int kLag = kDeep ? kDeepLag : 1;
  static constexpr int kAhead = kDeep ? kDeepAhead : 0;

  // One k group: every row's 8 values against every column's 8. The file is compiled in source
  // order (see above), so the loads, multiplies and accumulations issue as written here.
  static inline void step(Acc& acc, const int8x8_t (&a)[MR], const std::uint8_t* b) {
    const auto* column = reinterpret_cast<const std::int8_t*>(b);
    int8x8_t bv[kAhead + 1];
    for (int c = 0; c < kAhead && c < NR; ++c) bv[c] = vld1_s8(column + 8 * c);
    int16x8_t products[kLag + 1][MR];
    for (int c = 0; c < NR + kLag; ++c) {
      if (c < NR) {
        if (c + kAhead < NR) bv[(c + kAhead) % (kAhead + 1)] = vld1_s8(column + 8 * (c + kAhead));
        const int8x8_t bc = bv[c % (kAhead + 1)];
        for (int i = 0; i < MR; ++i) products[c % (kLag + 1)][i] = vmull_s8(a[i], bc);
      }
      if (c >= kLag) {
        const int done = c - kLag;
        for (int i = 0; i < MR; ++i) {
          acc.v[i][done] = vpadalq_s16(acc.v[i][done], products[done % (kLag + 1)][i]);
        }
      }
    }
  }

  static void accumulate_packed(Acc& acc, const GemmUkernelArgs& args) {
    const auto* a = static_cast<const std::int8_t*>(args.a_packed);
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, a += 8 * MR, b += 8 * NR) {
      int8x8_t rows[MR];
      for (int i = 0; i < MR; ++i) rows[i] = vld1_s8(a + 8 * i);
      step(acc, rows, b);
    }
  }

  static void accumulate_in_place(Acc& acc, const GemmUkernelArgs& args) {
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, b += 8 * NR) {
      const std::size_t valid = arm::group_bytes(args, g, kKr);
      int8x8_t rows[MR];
      for (int i = 0; i < MR; ++i) {
        std::uint8_t bytes[8];
        arm::load_group<8>(bytes, args.a_rows[i] + 8 * g, valid, args.a_flip);
        rows[i] = vreinterpret_s8_u8(vld1_u8(bytes));
      }
      step(acc, rows, b);
    }
  }
};

}  // namespace

GemmUkernel neon_gemm_2x8c8_ukernel() { return arm::make_arm_gemm_ukernel<NeonC8Core<2, 8>>("qs8-gemm-2x8c8-neon-mull"); }
GemmUkernel neon_gemm_2x12c8_ukernel() {
  return arm::make_arm_gemm_ukernel<NeonC8Core<2, 12>>("qs8-gemm-2x12c8-neon-mull");
}

}  // namespace qtune::detail
