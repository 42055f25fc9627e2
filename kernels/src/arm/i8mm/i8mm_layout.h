// The accumulator layout of the i8mm GEMM family and its conversion to row-major C vectors.
//
// usmmla (vusmmlaq_s32) multiplies a 2x8 u8 block (two rows of A, 8 k each, one q register) by
// an 8x2 s8 block (two columns of B, 8 k each, one q register) and adds the 2x2 int32 product to
// an accumulator register laid out as
//     lane 0: (row 0, col 0)   lane 1: (row 0, col 1)   lane 2: (row 1, col 0)   lane 3: (row 1, col 1)
// An MR x NR tile is therefore MR/2 x NR/2 such blocks: block[p][q] covers rows 2p, 2p+1 and
// columns 2q, 2q+1 (an 8x12 tile is 4 x 6 blocks of 2x2). The epilogue wants row-major vectors
// of 4 consecutive columns, which are the 64-bit halves of two neighbouring blocks:
//     row 2p,   columns 4j..4j+3 = low  halves of block[p][2j] and block[p][2j+1]   (zip1 .2d)
//     row 2p+1, columns 4j..4j+3 = high halves of block[p][2j] and block[p][2j+1]   (zip2 .2d)
// from_rows is the exact inverse (K-block partial sums are stored row-major and reloaded).
// Baseline NEON only (zip), so tests can include this header on any aarch64 build.
#pragma once

#include <arm_neon.h>

namespace qtune::detail::arm {

template <int MR, int NR>
struct I8mmBlocks {
  static_assert(MR % 2 == 0 && NR % 4 == 0, "i8mm tiles are whole 2x2 blocks, NR a multiple of 4");
  int32x4_t block[MR / 2][NR / 2];
};

inline int32x4_t zip_low_halves(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
}
inline int32x4_t zip_high_halves(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
}

// blocks -> rows[i][j] = C row i, columns 4j..4j+3.
template <int MR, int NR>
inline void i8mm_blocks_to_rows(const I8mmBlocks<MR, NR>& t, int32x4_t (&rows)[MR][NR / 4]) {
  for (int p = 0; p < MR / 2; ++p) {
    for (int j = 0; j < NR / 4; ++j) {
      rows[2 * p][j] = zip_low_halves(t.block[p][2 * j], t.block[p][2 * j + 1]);
      rows[2 * p + 1][j] = zip_high_halves(t.block[p][2 * j], t.block[p][2 * j + 1]);
    }
  }
}

// rows -> blocks, the inverse of i8mm_blocks_to_rows.
template <int MR, int NR>
inline void i8mm_rows_to_blocks(const int32x4_t (&rows)[MR][NR / 4], I8mmBlocks<MR, NR>& t) {
  for (int p = 0; p < MR / 2; ++p) {
    for (int j = 0; j < NR / 4; ++j) {
      t.block[p][2 * j] = zip_low_halves(rows[2 * p][j], rows[2 * p + 1][j]);
      t.block[p][2 * j + 1] = zip_high_halves(rows[2 * p][j], rows[2 * p + 1][j]);
    }
  }
}

}  // namespace qtune::detail::arm
