// Row sums of A read in place, 16 rows at a time (IsaRow::a_row_sums): what a per-tensor weight
// zero point costs a GEMM (TFLite's uint8 models: every row's term is -zb * rowsum(A)).
//
// Summed one row at a time (psadbw, then a horizontal add of its partial sums and a call per row)
// the term cost about as much as a whole small-K GEMM (MobileNetV2's 112x112x32 -> 16 project with
// and without a weight zero point: docs/measurements.md, "Row sums"). Here each row costs its
// loads, one xor and one vpdpbusd (Vnni, rows of more than 32 bytes) or psadbw and an add (the
// same rows without VNNI; shorter rows always) per load; the horizontal adds are shared by 16 rows
// as a transpose-and-add tree of 37 to 45 instructions that leaves row i's sum in lane i.
//
// Header-only: included by the AVX-512 BW family (x86/avx512bw/row_sums_avx512bw.cc, Vnni false)
// and the VNNI family (x86/avx512vnni/row_sums_avx512vnni.cc, Vnni true), each compiled with its
// own flags.
#pragma once

#include "x86/avx512vnni/requant_avx512.h"  // first: <immintrin.h> inside GCC 12's warning workaround

#include <cstddef>
#include <cstdint>

// Internal linkage, as every header compiled under more than one family's flags: an inline
// function of external linkage would be emitted by both translation units, and the linker could
// keep the VNNI one for a CPU without VNNI.
namespace qtune::detail::row_sums_avx512 {
namespace {

inline constexpr std::size_t kRows = 16;

// How a row of k_bytes splits into loads, the same for every row: computed once. A tail of at
// most 32 bytes takes a 256-bit load: on cores that split 512-bit operations in two (AMD Zen 4) a
// 512-bit one costs twice as much for the half it leaves empty.
struct RowChunks {
  std::size_t whole = 0;    // full 64-byte chunks
  __mmask64 tail = 0;       // the bytes of the last, partial chunk, where it is longer than 32 (else 0)
  __mmask32 short_tail = 0; // the same where it is 1 to 32 bytes long (else 0)

  explicit RowChunks(std::size_t k_bytes) : whole(k_bytes / 64) {
    const std::size_t bytes = k_bytes % 64;
    if (bytes > 32) tail = (__mmask64{1} << bytes) - 1;
    if (bytes != 0 && bytes <= 32) short_tail = bytes == 32 ? ~__mmask32{0} : (__mmask32{1} << bytes) - 1;
  }
};

// The 16 partial sums (one per dword) of sum over k < k_bytes of (row[k] ^ flip) as u8. With VNNI
// vpdpbusd against ones, one instruction per 64 bytes; without, psadbw and an add, whose qword sums
// leave the odd dwords 0 (a dword of a row grows by at most 8 * 255 per chunk, below 2^32 for every
// k_bytes < 2^24). Bytes past the row are never read (masked loads do not fault) and count as 0:
// the masked load leaves `flip` there, which the xor clears. Whole >= 0 fixes chunks.whole at
// compile time (the rows of MobileNetV2's and InceptionV3's 1x1 layers of 65 to 319 bytes are one
// to four chunks and a tail): unrolled, a row is its loads and sums and no loop
// (docs/measurements.md, "Row sums"). Two sums halve the chain of dependent additions of long rows.
template <bool Vnni, bool Flip, int Whole>
__attribute__((always_inline)) inline __m512i row_partials(const std::uint8_t* row, const RowChunks& chunks,
                                                          __m512i flips) {
  const auto add_chunk = [&](__m512i sums, __m512i v) {
    if constexpr (Flip) v = _mm512_xor_si512(v, flips);
    if constexpr (Vnni) return _mm512_dpbusd_epi32(sums, v, _mm512_set1_epi8(1));
    else return _mm512_add_epi32(sums, _mm512_sad_epu8(v, _mm512_setzero_si512()));
  };
  const std::size_t whole = Whole >= 0 ? static_cast<std::size_t>(Whole) : chunks.whole;
  __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
  std::size_t i = 0;
  for (; i + 2 <= whole; i += 2, row += 128) {
    even = add_chunk(even, _mm512_loadu_si512(row));
    odd = add_chunk(odd, _mm512_loadu_si512(row + 64));
  }
  if (i < whole) {
    even = add_chunk(even, _mm512_loadu_si512(row));
    row += 64;
  }
  if (chunks.short_tail != 0) {
    const __m256i flips256 = _mm512_castsi512_si256(flips);
    __m256i tail = _mm256_mask_loadu_epi8(flips256, chunks.short_tail, row);
    if constexpr (Flip) tail = _mm256_xor_si256(tail, flips256);
    __m256i sums;
    if constexpr (Vnni) sums = _mm256_dpbusd_epi32(_mm256_setzero_si256(), tail, _mm256_set1_epi8(1));
    else sums = _mm256_sad_epu8(tail, _mm256_setzero_si256());
    odd = _mm512_add_epi32(odd, _mm512_zextsi256_si512(sums));
  } else if (chunks.tail != 0) {
    odd = add_chunk(odd, _mm512_mask_loadu_epi8(flips, chunks.tail, row));
  }
  return _mm512_add_epi32(even, odd);
}

// Rows a and b of 16 dword partials each, as 8 per row: 128-bit lane L holds a's, b's, a's, b's
// partials (2L, 2L + 1) summed over the lane's halves.
inline __m512i pair_dwords(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}

// a's 128-bit lanes (0, 2), b's (0, 2) plus a's (1, 3), b's (1, 3): halves the lanes per row.
inline __m512i fold_lanes(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

// Lane i of the result: the sum of row i's partials, for 16 rows given as 8 pairs (pair_dwords).
__attribute__((always_inline)) inline __m512i sum_pairs(const __m512i (&pairs)[kRows / 2]) {
  // Quads: 128-bit lane L of quads[t] holds rows 4t..4t+3, each summed over the lane's partials.
  __m512i quads[kRows / 4];
#pragma GCC unroll 4
  for (std::size_t t = 0; t < kRows / 4; ++t) {
    quads[t] = _mm512_add_epi32(_mm512_unpacklo_epi64(pairs[2 * t], pairs[2 * t + 1]),
                                _mm512_unpackhi_epi64(pairs[2 * t], pairs[2 * t + 1]));
  }
  // Lanes 0-1 of fold_lanes(quads[0], quads[1]) hold rows 0-3 (two halves), lanes 2-3 rows 4-7.
  return fold_lanes(fold_lanes(quads[0], quads[1]), fold_lanes(quads[2], quads[3]));
}

// ---- Rows of at most 32 bytes (1x1 layers with up to 32 channels, the patches of 3-channel first
// layers, the pixels of convolutions' window terms): one 256-bit load and psadbw per row, and a 256-bit tree. On cores
// that split 512-bit operations in two (AMD Zen 4) the 512-bit form cost twice as much per row for
// the half of each vector these rows leave empty.

inline constexpr std::size_t kShortRowBytes = 32;

// Rows 2j and 2j + 1 of 16 (4 qword partials each, every partial < 2^11) in one vector: dword 2q
// holds row 2j's partial q, dword 2q + 1 row 2j + 1's.
inline __m256i pair_short(__m256i a, __m256i b) { return _mm256_or_si256(a, _mm256_slli_epi64(b, 32)); }

// Four rows' pairs p, q (rows r..r+1, r+2..r+3) as the dwords [r, r+1, r+2, r+3] of each 128-bit
// lane, lane L summed over partials 2L and 2L + 1.
inline __m256i quad_short(__m256i p, __m256i q) {
  return _mm256_add_epi32(_mm256_unpacklo_epi64(p, q), _mm256_unpackhi_epi64(p, q));
}

// Eight rows' full sums in order from two quads (rows 0-3 and 4-7): the lanes of each added.
inline __m256i octet_short(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
}

template <bool Flip>
inline void row_sums_short(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                           std::int32_t* row_terms) {
  const __m256i flips = _mm256_set1_epi8(static_cast<char>(flip));
  const __mmask32 bytes = RowChunks(k_bytes).short_tail;  // k_bytes <= 32: no whole chunk
  // Bytes past the row are never read and count as 0 (the masked load leaves `flip` there, which
  // the xor clears).
  const auto partials = [&](const std::uint8_t* row) {
    __m256i v = _mm256_mask_loadu_epi8(flips, bytes, row);
    if constexpr (Flip) v = _mm256_xor_si256(v, flips);
    return _mm256_sad_epu8(v, _mm256_setzero_si256());
  };
  for (std::size_t r0 = 0; r0 < count; r0 += kRows) {
    const std::size_t n = count - r0 < kRows ? count - r0 : kRows;
    __m256i pairs[kRows / 2];
    for (std::size_t j = 0; j < kRows / 2; ++j) {
      const std::size_t a = 2 * j, b = 2 * j + 1;
      pairs[j] = pair_short(a < n ? partials(rows[r0 + a]) : _mm256_setzero_si256(),
                            b < n ? partials(rows[r0 + b]) : _mm256_setzero_si256());
    }
    const __m256i low = octet_short(quad_short(pairs[0], pairs[1]), quad_short(pairs[2], pairs[3]));
    const __m256i high = octet_short(quad_short(pairs[4], pairs[5]), quad_short(pairs[6], pairs[7]));
    const __mmask16 mask = avx512::lane_mask(n);
    const auto low_mask = static_cast<__mmask8>(mask), high_mask = static_cast<__mmask8>(mask >> 8);
    std::int32_t* terms = row_terms + r0;
    _mm256_mask_storeu_epi32(terms, low_mask, _mm256_sub_epi32(_mm256_maskz_loadu_epi32(low_mask, terms), low));
    _mm256_mask_storeu_epi32(terms + 8, high_mask,
                             _mm256_sub_epi32(_mm256_maskz_loadu_epi32(high_mask, terms + 8), high));
  }
}

// Rows of more than 32 bytes. Each block of 16 rows keeps its partials in registers, paired as
// they are summed: an array of 16 partials indexed in a loop was kept on the stack, and with the
// loop over a row's chunks a row cost markedly more (docs/measurements.md, "Row sums"). The rows
// past `count` in the last block repeat its first row, whose lanes are not stored.
template <bool Vnni, bool Flip, int Whole>
inline void row_sums_long(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count,
                          const RowChunks& chunks, std::int32_t* row_terms) {
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  for (std::size_t r0 = 0; r0 < count; r0 += kRows) {
    const std::size_t n = count - r0 < kRows ? count - r0 : kRows;
    const auto row = [&](std::size_t i) { return rows[r0 + (i < n ? i : 0)]; };
    __m512i pairs[kRows / 2];
#pragma GCC unroll 8
    for (std::size_t j = 0; j < kRows / 2; ++j) {
      pairs[j] = pair_dwords(row_partials<Vnni, Flip, Whole>(row(2 * j), chunks, flips),
                             row_partials<Vnni, Flip, Whole>(row(2 * j + 1), chunks, flips));
    }
    const __mmask16 mask = avx512::lane_mask(n);
    const __m512i terms = _mm512_maskz_loadu_epi32(mask, row_terms + r0);
    _mm512_mask_storeu_epi32(row_terms + r0, mask, _mm512_sub_epi32(terms, sum_pairs(pairs)));
  }
}

template <bool Vnni, bool Flip>
inline void row_sums(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                     std::int32_t* row_terms) {
  if (k_bytes <= kShortRowBytes) return row_sums_short<Flip>(flip, rows, count, k_bytes, row_terms);
  const RowChunks chunks(k_bytes);
  switch (chunks.whole) {
    case 0: return row_sums_long<Vnni, Flip, 0>(flip, rows, count, chunks, row_terms);
    case 1: return row_sums_long<Vnni, Flip, 1>(flip, rows, count, chunks, row_terms);
    case 2: return row_sums_long<Vnni, Flip, 2>(flip, rows, count, chunks, row_terms);
    case 3: return row_sums_long<Vnni, Flip, 3>(flip, rows, count, chunks, row_terms);
    case 4: return row_sums_long<Vnni, Flip, 4>(flip, rows, count, chunks, row_terms);
    default: return row_sums_long<Vnni, Flip, -1>(flip, rows, count, chunks, row_terms);
  }
}

// ---- Rows of 16 or 32 bytes stored back to back (dense A of 1x1 layers with 16 or 32 input
// channels, a convolution's input pixels of 16 or 32 channels): each 512-bit load holds 4 or 2
// whole rows, so 16 rows are 4 or 8 loads and psadbws, one masked shuffle per two of them, and a
// tree of 4 or 7 instructions and a permute, where the 256-bit path takes 16 loads of row pointers,
// 16 loads, 16 psadbws and a tree of 34 instructions. psadbw leaves qword q of a load the sum of its
// bytes 8q..8q+7: RowBytes / 8 qwords per row, each below 2^11.

// Dwords 2q of even_sads, 2q + 1 of odd_sads' dword 2q: both loads' qword sums in one vector
// (their high dwords are 0).
inline __m512i merge_sads(__m512i even_sads, __m512i odd_sads) {
  return _mm512_mask_shuffle_epi32(even_sads, 0xAAAA, odd_sads, _MM_PERM_CDAB);
}

// Dwords 0 + 2 and 1 + 3 of each 128-bit lane of a, then of b: [a0 + a2, a1 + a3, b0 + b2, b1 + b3].
inline __m512i add_dword_pairs(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

// Lane i of the result: row i's sum, for the 16 rows starting at `block` (only the first n of
// them read, the rest 0).
template <bool Flip, std::size_t RowBytes>
__attribute__((always_inline)) inline __m512i dense_block_sums(const std::uint8_t* block, std::size_t n,
                                                               __m512i flips) {
  constexpr std::size_t kLoads = kRows * RowBytes / 64;
  __m512i sads[kLoads];
  const std::size_t bytes = n * RowBytes;
#pragma GCC unroll 8
  for (std::size_t j = 0; j < kLoads; ++j) {
    __m512i v;
    if (n == kRows) {
      v = _mm512_loadu_si512(block + 64 * j);
    } else {
      // Bytes past the n rows are never read and count as 0 (the masked load leaves `flip`
      // there, which the xor clears).
      const std::size_t left = bytes > 64 * j ? bytes - 64 * j : 0;
      const __mmask64 mask = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      v = _mm512_mask_loadu_epi8(flips, mask, block + 64 * j);
    }
    if constexpr (Flip) v = _mm512_xor_si512(v, flips);
    sads[j] = _mm512_sad_epu8(v, _mm512_setzero_si512());
  }
  if constexpr (RowBytes == 16) {
    // sads[j] lane L: row 4j + L (2 qwords). Merged, lane L of the sum holds rows L, 4 + L, 8 + L,
    // 12 + L.
    const __m512i sums = add_dword_pairs(merge_sads(sads[0], sads[1]), merge_sads(sads[2], sads[3]));
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), sums);
  } else {
    static_assert(RowBytes == 32);
    // sads[j] lanes 0-1: row 2j, lanes 2-3: row 2j + 1 (4 qwords). Merged and paired, lanes 0-1 of
    // low hold halves of rows 0, 2, 4, 6, lanes 2-3 of rows 1, 3, 5, 7 (high: the next 8); folded,
    // the lanes hold rows (0 2 4 6) (1 3 5 7) (8 10 12 14) (9 11 13 15).
    const __m512i low = add_dword_pairs(merge_sads(sads[0], sads[1]), merge_sads(sads[2], sads[3]));
    const __m512i high = add_dword_pairs(merge_sads(sads[4], sads[5]), merge_sads(sads[6], sads[7]));
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15),
                                    fold_lanes(low, high));
  }
}

template <bool Flip, std::size_t RowBytes>
inline void dense_row_sums(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::int32_t* row_terms) {
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  std::size_t r0 = 0;
  for (; r0 + kRows <= count; r0 += kRows) {
    const __m512i sums = dense_block_sums<Flip, RowBytes>(first + r0 * RowBytes, kRows, flips);
    _mm512_storeu_si512(row_terms + r0, _mm512_sub_epi32(_mm512_loadu_si512(row_terms + r0), sums));
  }
  if (r0 < count) {
    const std::size_t n = count - r0;
    const __m512i sums = dense_block_sums<Flip, RowBytes>(first + r0 * RowBytes, n, flips);
    const __mmask16 mask = avx512::lane_mask(n);
    _mm512_mask_storeu_epi32(row_terms + r0, mask,
                             _mm512_sub_epi32(_mm512_maskz_loadu_epi32(mask, row_terms + r0), sums));
  }
}

template <bool Flip>
inline bool dense_row_sums(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                           std::int32_t* row_terms) {
  if (row_bytes == 16) {
    dense_row_sums<Flip, 16>(flip, first, count, row_terms);
  } else if (row_bytes == 32) {
    dense_row_sums<Flip, 32>(flip, first, count, row_terms);
  } else {
    return false;
  }
  return true;
}

// The exported kernels' bodies (RowSumsFn, DenseRowSumsFn in gemm/gemm_pack.h).
template <bool Vnni>
void sum_rows(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
              std::int32_t* row_terms) {
  if (flip == 0) return row_sums<Vnni, false>(flip, rows, count, k_bytes, row_terms);
  row_sums<Vnni, true>(flip, rows, count, k_bytes, row_terms);
}

inline bool sum_dense_rows(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                           std::int32_t* row_terms) {
  if (flip == 0) return dense_row_sums<false>(flip, first, count, row_bytes, row_terms);
  return dense_row_sums<true>(flip, first, count, row_bytes, row_terms);
}

}  // namespace
}  // namespace qtune::detail::row_sums_avx512
