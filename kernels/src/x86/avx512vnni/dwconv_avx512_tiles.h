// The general-form depthwise tiles on AVX-512 (16 int32 lanes per vector), listed once for the
// two families that compile them: AVX-512 VNNI (products by vpdpwssd) and AVX-512 BW (vpmaddwd
// and an add). Each expands the list in its own translation unit, with its own flags, so
// Avx512Vector there is that family's (kIsa, madd).
#pragma once

#include "dwconv/dwconv_template.h"

// 7 pixels: the rows of 7 * 2^k pixels in whole tiles (dw_tile_at). 64 channels would not fit
// 7 pixels' accumulators beside a kernel row's inputs in 32 registers.
#define QTUNE_AVX512_DW_GENERAL_KERNELS                                                                             \
  QTUNE_DW_KERNEL(Avx512Vector, 16, 1), QTUNE_DW_KERNEL(Avx512Vector, 32, 1), QTUNE_DW_KERNEL(Avx512Vector, 64, 1), \
      QTUNE_DW_KERNEL(Avx512Vector, 16, 2), QTUNE_DW_KERNEL(Avx512Vector, 32, 2),                                 \
      QTUNE_DW_KERNEL(Avx512Vector, 64, 2), QTUNE_DW_KERNEL(Avx512Vector, 16, 4),                                 \
      QTUNE_DW_KERNEL(Avx512Vector, 32, 4), QTUNE_DW_KERNEL(Avx512Vector, 64, 4),                                 \
      QTUNE_DW_KERNEL(Avx512Vector, 16, 8), QTUNE_DW_KERNEL(Avx512Vector, 32, 8),                                 \
      QTUNE_DW_KERNEL(Avx512Vector, 16, 7), QTUNE_DW_KERNEL(Avx512Vector, 32, 7)
