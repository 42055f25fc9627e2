// The products of clipped weights with packed A (GemmUkernel::clipped_products) in AVX2 vectors, for
// the families that clip weight pairs (x86/avx2ubsw, x86/avx512ubsw; gemm/pair_clipping.h).
//
// Trained weights clip about two weights per output channel at their own k, so a call's excesses
// rarely share a k and a vector across columns would hold one of them. A vector across rows holds
// them all: a packed A panel keeps a group's rows 4 bytes apart ([k_groups][mr][4]), so one masked
// load brings a k's group of 8 rows, a byte shuffle leaves the k's byte alone in each int32 lane, and
// vpmaddwd with the excess in the low half of every lane multiplies them exactly (a byte times an
// int16, the high halves zero). The products are summed by column, then 8 x 8 blocks are transposed
// into the rows x nr_stride layout the microkernels add (GemmUkernelArgs::corrections). The driver's
// scalar loop takes a load, a multiply and a read-modify-write of memory per row and excess.
//
// Include only from x86/<isa>/ translation units compiled with at least -mavx2: internal linkage, as
// in x86/gemm_x86_ukernel.h, keeps each family's copy of its own compilation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gemm/gemm_ukernel.h"
#include "x86/gemm_x86_ukernel.h"  // <immintrin.h>, included the way GCC 12 needs

namespace qtune::detail {
namespace {

// An 8 x 8 block of int32: row i of `in` (rows in_stride apart) becomes column i of `out`.
inline void transpose_8x8_epi32(const std::int32_t* in, std::size_t in_stride, std::int32_t* out,
                                std::size_t out_stride) {
  __m256i r[8];
  for (std::size_t i = 0; i < 8; ++i) r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i * in_stride));
  // Pairs of rows interleaved by element, then by element pair, then the 128-bit halves exchanged.
  __m256i t[8], u[8];
  for (std::size_t i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (std::size_t i = 0; i < 8; i += 4) {
    u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (std::size_t j = 0; j < 4; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j * out_stride),
                        _mm256_permute2x128_si256(u[j], u[j + 4], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (j + 4) * out_stride),
                        _mm256_permute2x128_si256(u[j], u[j + 4], 0x31));
  }
}

inline void clipped_products_avx2(const ClippedProductsArgs& args) {
  const std::size_t mr = args.mr, nr_stride = args.nr_stride, panels = args.panels;
  const std::size_t panel_bytes = args.a_panel_bytes;
  // Each panel's rows in whole vectors of their own: a vector that reached into the next panel's
  // rows would be stored, then loaded in part by the next panel's, which the store buffer cannot
  // forward.
  const std::size_t panel_rows = (mr + 7) / 8 * 8, column_rows = panels * panel_rows;
  std::fill_n(args.by_column, nr_stride * column_rows, 0);
  // The rows of the panel's last vector (the others are whole).
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i last_rows = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(mr - (panel_rows - 8))), lane);
  const __m256i all_rows = _mm256_set1_epi32(-1);
  // Which 8-column blocks any excess reached: the others transpose to zeros.
  std::uint32_t touched = 0;
  for (std::size_t e = 0; e < args.clipped_count; ++e) {
    const ClippedWeight w = args.clipped[e];
    const std::size_t k = w.k - args.k0;
    // vpshufb moves the k's byte of each row's 4 into the low byte of its lane, zeros above.
    const std::int8_t b = static_cast<std::int8_t>(k % 4);
    const __m256i pick = _mm256_setr_epi8(b, -1, -1, -1, b + 4, -1, -1, -1, b + 8, -1, -1, -1, b + 12, -1, -1, -1,  //
                                          b, -1, -1, -1, b + 4, -1, -1, -1, b + 8, -1, -1, -1, b + 12, -1, -1, -1);
    const __m256i excess = _mm256_set1_epi32(static_cast<std::uint16_t>(w.excess));
    touched |= std::uint32_t{1} << (w.column / 8);
    const std::uint8_t* group = args.a_packed + k / 4 * mr * 4;
    std::int32_t* column = args.by_column + std::size_t{w.column} * column_rows;
    for (std::size_t p = 0; p < panels; ++p, group += panel_bytes, column += panel_rows) {
      for (std::size_t i = 0; i < panel_rows; i += 8) {
        const __m256i rows = i + 8 == panel_rows ? last_rows : all_rows;
        const __m256i quads = _mm256_maskload_epi32(reinterpret_cast<const int*>(group + i * 4), rows);
        const __m256i products = _mm256_madd_epi16(_mm256_shuffle_epi8(quads, pick), excess);
        __m256i* sums = reinterpret_cast<__m256i*>(column + i);
        _mm256_storeu_si256(sums, _mm256_add_epi32(_mm256_loadu_si256(sums), products));
      }
    }
  }
  // Panel by panel, in order: a panel's last vector of rows writes past its own, which the next
  // panel's then overwrites.
  for (std::size_t p = 0; p < panels; ++p) {
    for (std::size_t i = 0; i < panel_rows; i += 8) {
      std::int32_t* out = args.corrections + (p * mr + i) * nr_stride;
      for (std::size_t c = 0; c < nr_stride; c += 8) {
        if ((touched >> (c / 8) & 1) != 0) {
          transpose_8x8_epi32(args.by_column + c * column_rows + p * panel_rows + i, column_rows, out + c, nr_stride);
        } else {
          for (std::size_t r = 0; r < 8; ++r) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * nr_stride + c), _mm256_setzero_si256());
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace qtune::detail
