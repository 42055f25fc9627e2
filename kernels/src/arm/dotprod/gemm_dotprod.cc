// The `dotprod` GEMM family (Armv8.2 sdot): one sdot adds, in each int32 lane, the dot product of
// 4 int8 pairs, i.e. 16 exact MACs per instruction. A k group is kr = 4 values; a B vector holds
// 4 columns x 4 k (16 bytes) and every accumulator vector is 4 consecutive columns of one C row
// (row-major, nothing to de-interleave). sdot multiplies signed by signed, so activations are
// packed as s8 (PackedA::s8): u8 inputs are flipped with ^0x80 and the -128 shift is compensated
// through the column sums in the packed B panel's col_term (gemm_pack.cc). usdot (u8 x s8) would
// avoid the flip but belongs to i8mm, not to Armv8.2.
//
// Packed A: 16 bytes of the panel are 4 rows x 4 k, so one load feeds 4 rows through the
// by-element form (sdot v.4s, b.16b, a.4b[r]): an 8x12 tile is 2 A loads + 3 B loads + 24 sdot
// per 4-deep k step, with 24 accumulators. A read in place (non-interleaved rows) broadcasts each
// row's 4 bytes instead; the 4x16 tile (one A vector against 4 B vectors) is the shape for that.
#include <arm_neon.h>

#include <utility>

#include "arm/gemm_arm_tile.h"

namespace qtune::detail {
namespace {

template <int MR, int NR>
struct DotprodCore : arm::RowMajorLayout<MR, NR / 4> {
  static_assert(MR % 4 == 0, "the by-element sdot reads 4 rows from one packed A vector");
  static constexpr Isa kIsa = Isa::dotprod;
  static constexpr int kMr = MR, kNr = NR, kKr = 4, kVecs = NR / 4;
  static constexpr PackedA kAFormat = PackedA::s8;
  static constexpr PackedB kBFormat = PackedB::s8;
  using Acc = arm::RowTile<MR, kVecs>;

  static void load_b(const std::uint8_t* b, int8x16_t (&out)[kVecs]) {
    for (int j = 0; j < kVecs; ++j) out[j] = vld1q_s8(reinterpret_cast<const std::int8_t*>(b) + 16 * j);
  }

  // Rows 4q .. 4q+3 against every B vector: lane r of `a` is row 4q + r's 4-byte group.
  template <int Q>
  static inline void step_rows(Acc& acc, int8x16_t a, const int8x16_t (&b)[kVecs]) {
    for (int j = 0; j < kVecs; ++j) {
      acc.v[4 * Q + 0][j] = vdotq_laneq_s32(acc.v[4 * Q + 0][j], b[j], a, 0);
      acc.v[4 * Q + 1][j] = vdotq_laneq_s32(acc.v[4 * Q + 1][j], b[j], a, 1);
      acc.v[4 * Q + 2][j] = vdotq_laneq_s32(acc.v[4 * Q + 2][j], b[j], a, 2);
      acc.v[4 * Q + 3][j] = vdotq_laneq_s32(acc.v[4 * Q + 3][j], b[j], a, 3);
    }
  }

  template <int... Q>
  static inline void step_all(Acc& acc, const std::uint8_t* a, const int8x16_t (&b)[kVecs],
                              std::integer_sequence<int, Q...>) {
    (step_rows<Q>(acc, vld1q_s8(reinterpret_cast<const std::int8_t*>(a) + 16 * Q), b), ...);
  }

  static void accumulate_packed(Acc& acc, const GemmUkernelArgs& args) {
    const auto* a = static_cast<const std::uint8_t*>(args.a_packed);
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    // Four groups an iteration: the loop's counter and branch weigh a quarter as much per sdot.
#pragma GCC unroll 4
    for (std::size_t g = 0; g < args.k_groups; ++g, a += 4 * MR, b += 16 * kVecs) {
      int8x16_t bv[kVecs];
      load_b(b, bv);
      step_all(acc, a, bv, std::make_integer_sequence<int, MR / 4>{});
    }
  }

  static void accumulate_in_place(Acc& acc, const GemmUkernelArgs& args) {
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = 0; g < args.k_groups; ++g, b += 16 * kVecs) {
      int8x16_t bv[kVecs];
      load_b(b, bv);
      const std::size_t valid = arm::group_bytes(args, g, kKr);
      for (int i = 0; i < MR; ++i) {
        std::uint8_t bytes[4];
        arm::load_group<4>(bytes, args.a_rows[i] + 4 * g, valid, args.a_flip);
        std::uint32_t group;
        std::memcpy(&group, bytes, sizeof(group));
        const int8x16_t a = vreinterpretq_s8_u32(vdupq_n_u32(group));
        for (int j = 0; j < kVecs; ++j) acc.v[i][j] = vdotq_s32(acc.v[i][j], bv[j], a);
      }
    }
  }
};

constexpr GemmUkernel kDotprodUkernels[] = {
    arm::make_arm_gemm_ukernel<DotprodCore<4, 4>>("qs8-gemm-4x4c4-dotprod"),
    arm::make_arm_gemm_ukernel<DotprodCore<4, 16>>("qs8-gemm-4x16c4-dotprod"),
    arm::make_arm_gemm_ukernel<DotprodCore<8, 8>>("qs8-gemm-8x8c4-dotprod"),
    arm::make_arm_gemm_ukernel<DotprodCore<8, 12>>("qs8-gemm-8x12c4-dotprod"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_dotprod() { return kDotprodUkernels; }

}  // namespace qtune::detail
