// The `i8mm` GEMM family's core (usmmla on 2x2 blocks; the family is described in gemm_i8mm.cc),
// shared by the family's translation units: gemm_i8mm.cc instantiates its tiles, gemm_i8mm_8x12.cc
// the 8x12 tile, which is compiled with flags of its own. The core lives in an unnamed namespace on
// purpose: every translation unit gets its own type, so a tile is only ever instantiated, and
// compiled, with the flags of the unit that registers it (never merged with another unit's copy).
#pragma once

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

}  // namespace

// The 8x12 tile's descriptor (gemm_i8mm_8x12.cc).
GemmUkernel i8mm_gemm_8x12_ukernel();

}  // namespace qtune::detail
