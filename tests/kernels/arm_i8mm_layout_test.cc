// The i8mm accumulator layout (kernels/src/arm/i8mm/i8mm_layout.h), tested directly: the 2x2
// block -> row-major conversion on labelled values, its inverse, and (where the CPU has i8mm) the
// layout usmmla really produces, so the documented lane order is the hardware's.
#include <gtest/gtest.h>

#if defined(__aarch64__)
#include <arm_neon.h>

#include <cstdint>

#include "kernels/src/arm/i8mm/i8mm_layout.h"
#include "qtune/kernels/cpu_features.h"

namespace {

using qtune::detail::arm::I8mmBlocks;

constexpr int kMr = 8, kNr = 12;

// The label of C element (i, j), distinct for every element of the tile.
std::int32_t label(int i, int j) { return 100 * i + j; }

// Fills blocks as the documented layout says usmmla leaves them.
I8mmBlocks<kMr, kNr> labelled_blocks() {
  I8mmBlocks<kMr, kNr> t;
  for (int p = 0; p < kMr / 2; ++p) {
    for (int q = 0; q < kNr / 2; ++q) {
      const std::int32_t lanes[4] = {label(2 * p, 2 * q), label(2 * p, 2 * q + 1), label(2 * p + 1, 2 * q),
                                     label(2 * p + 1, 2 * q + 1)};
      t.block[p][q] = vld1q_s32(lanes);
    }
  }
  return t;
}

TEST(ArmI8mmLayout, BlocksToRowsGivesRowMajorC) {
  int32x4_t rows[kMr][kNr / 4];
  qtune::detail::arm::i8mm_blocks_to_rows(labelled_blocks(), rows);
  for (int i = 0; i < kMr; ++i) {
    for (int j = 0; j < kNr / 4; ++j) {
      std::int32_t lanes[4];
      vst1q_s32(lanes, rows[i][j]);
      for (int l = 0; l < 4; ++l) EXPECT_EQ(lanes[l], label(i, 4 * j + l)) << "row " << i << " column " << 4 * j + l;
    }
  }
}

TEST(ArmI8mmLayout, RowsToBlocksIsTheInverse) {
  const I8mmBlocks<kMr, kNr> original = labelled_blocks();
  int32x4_t rows[kMr][kNr / 4];
  qtune::detail::arm::i8mm_blocks_to_rows(original, rows);
  I8mmBlocks<kMr, kNr> back;
  qtune::detail::arm::i8mm_rows_to_blocks(rows, back);
  for (int p = 0; p < kMr / 2; ++p) {
    for (int q = 0; q < kNr / 2; ++q) {
      std::int32_t want[4], got[4];
      vst1q_s32(want, original.block[p][q]);
      vst1q_s32(got, back.block[p][q]);
      for (int l = 0; l < 4; ++l) EXPECT_EQ(got[l], want[l]) << "block " << p << "," << q << " lane " << l;
    }
  }
}

// One usmmla on known operands: a = rows 0, 1 of A (8 u8 each), b = columns 0, 1 of B (8 s8 each).
__attribute__((target("arch=armv8.2-a+i8mm"))) int32x4_t usmmla_once(const std::uint8_t* a, const std::int8_t* b) {
  return vusmmlaq_s32(vdupq_n_s32(0), vld1q_u8(a), vld1q_s8(b));
}

TEST(ArmI8mmLayout, UsmmlaProducesTheDocumentedLaneOrder) {
  if (!qtune::cpu_features().usable(qtune::Isa::i8mm)) GTEST_SKIP() << "isa i8mm is not usable on this CPU";
  std::uint8_t a[16];
  std::int8_t b[16];
  for (int t = 0; t < 16; ++t) {
    a[t] = static_cast<std::uint8_t>(200 + 3 * t);           // includes values above 127: unsigned
    b[t] = static_cast<std::int8_t>(t % 2 ? -100 - t : 7 * t);  // includes negatives: signed
  }
  std::int32_t got[4];
  vst1q_s32(got, usmmla_once(a, b));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      std::int32_t want = 0;
      for (int t = 0; t < 8; ++t) want += std::int32_t{a[8 * r + t]} * b[8 * c + t];
      EXPECT_EQ(got[2 * r + c], want) << "lane " << 2 * r + c << " should be (row " << r << ", column " << c << ")";
    }
  }
}

}  // namespace

#else

TEST(ArmI8mmLayout, OnlyOnAarch64) { GTEST_SKIP() << "the i8mm layout exists on aarch64 builds only"; }

#endif
