// Row sums of A, 8 rows at a time (IsaRow::a_row_sums, a_dense_row_sums; the AVX2 packer's row
// terms): the AVX2 form of x86/avx512bw/row_sums_avx512.h, for the CPUs without AVX-512 and for
// A panels packed by AVX2. Each row costs its loads, one xor and one psadbw and an add per 32
// bytes; the horizontal adds are shared by 8 rows as a tree of 12 instructions that leaves row i's
// sum in lane i, where a row summed alone took a reduction of its own and a call
// (docs/measurements.md, "Row sums").
//
// AVX2 has no byte-masked load, and bytes past a row must not be read (the last row of A can end
// at a page boundary): a row's tail is the 32 bytes ending at the row's end with the bytes already
// counted masked off, or, in rows shorter than 32 bytes, the whole dwords as a dword-masked load
// (masked-off dwords do not fault) and the last 1 to 3 bytes one by one.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "gemm/gemm_pack.h"

namespace qtune::detail {
namespace {

constexpr std::size_t kRows = 8;
constexpr std::size_t kChunk = 32;

// Bytes [begin, end) of a vector set to 0xFF, the others 0 (0 <= begin <= end <= 32).
__m256i byte_range(std::size_t begin, std::size_t end) {
  const __m256i index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                         21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  const __m256i at_least_begin = _mm256_cmpgt_epi8(index, _mm256_set1_epi8(static_cast<char>(begin) - 1));
  const __m256i below_end = _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(end)), index);
  return _mm256_and_si256(at_least_begin, below_end);
}

// Lanes [0, n) of 8 dwords (n <= 8): the mask of a dword-masked load or store.
__m256i dword_lanes(std::size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// How a row of k_bytes splits into loads, the same for every row: computed once.
struct RowChunks {
  std::size_t k_bytes = 0;
  std::size_t whole = 0;   // full 32-byte chunks
  bool tail = false;       // bytes after them: the tail load, with `keep` its bytes that count
  __m256i keep;
  __m256i dwords;          // rows shorter than 32 bytes: the whole dwords the tail load reads
  std::size_t loose = 0;   // rows shorter than 32 bytes: the 0 to 3 bytes after those dwords

  explicit RowChunks(std::size_t k) : k_bytes(k), whole(k / kChunk) {
    const std::size_t rest = k % kChunk;
    tail = rest >= (whole == 0 ? 4 : 1);
    if (whole != 0) {
      keep = byte_range(kChunk - rest, kChunk);
      dwords = _mm256_setzero_si256();
    } else {
      keep = byte_range(0, rest / 4 * 4);
      dwords = dword_lanes(rest / 4);
      loose = rest % 4;
    }
  }
};

// The 4 qword partial sums of sum over k < k_bytes of (row[k] ^ flip) as u8 (each below 2^32 for
// every k_bytes < 2^24: 8 * 255 per chunk). Whole >= 0 fixes chunks.whole at compile time (rows
// of up to 4 chunks: unrolled, a row is its loads and sums and no loop, as the AVX-512 form).
template <bool Flip, int Whole>
__attribute__((always_inline)) inline __m256i row_partials(const std::uint8_t* row, const RowChunks& chunks,
                                                          std::uint8_t flip, __m256i flips) {
  const __m256i zero = _mm256_setzero_si256();
  const auto sad = [&](__m256i v) { return _mm256_sad_epu8(Flip ? _mm256_xor_si256(v, flips) : v, zero); };
  const auto chunk = [&](std::size_t i) {
    return sad(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + kChunk * i)));
  };
  const std::size_t whole = Whole >= 0 ? static_cast<std::size_t>(Whole) : chunks.whole;
  __m256i even = zero, odd = zero;
  std::size_t i = 0;
  for (; i + 2 <= whole; i += 2) {
    even = _mm256_add_epi64(even, chunk(i));
    odd = _mm256_add_epi64(odd, chunk(i + 1));
  }
  if (i < whole) even = _mm256_add_epi64(even, chunk(i));
  if (chunks.tail) {
    const __m256i v = whole != 0
                          ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + chunks.k_bytes - kChunk))
                          : _mm256_maskload_epi32(reinterpret_cast<const int*>(row), chunks.dwords);
    odd = _mm256_add_epi64(odd, _mm256_sad_epu8(_mm256_and_si256(Flip ? _mm256_xor_si256(v, flips) : v, chunks.keep),
                                                zero));
  }
  if (Whole == 0 && chunks.loose != 0) {
    std::uint32_t loose = 0;
    for (std::size_t k = chunks.k_bytes - chunks.loose; k < chunks.k_bytes; ++k) {
      loose += static_cast<std::uint8_t>(row[k] ^ flip);
    }
    odd = _mm256_add_epi64(odd, _mm256_zextsi128_si256(_mm_cvtsi32_si128(static_cast<int>(loose))));
  }
  return _mm256_add_epi64(even, odd);
}

// Row a's partials in the even dwords, row b's in the odd ones (their high dwords are 0).
__m256i pair_rows(__m256i a, __m256i b) { return _mm256_or_si256(a, _mm256_slli_epi64(b, 32)); }

// Rows r..r+3 from the pairs p (r, r+1) and q (r+2, r+3): dword j of each 128-bit lane is row
// r + j summed over the lane's two partials.
__m256i quad_rows(__m256i p, __m256i q) {
  return _mm256_add_epi32(_mm256_unpacklo_epi64(p, q), _mm256_unpackhi_epi64(p, q));
}

// Lane i: row i's sum, from the quads of rows 0-3 and 4-7 (each lane of a quad holds half).
__m256i octet_rows(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
}

// Blocks of 8 rows; row(i) gives row i's first byte. The rows past `count` in the last block
// repeat its first row, whose lanes are not stored.
template <bool Flip, int Whole, typename RowAt>
void row_sums(std::uint8_t flip, RowAt row_at, std::size_t count, const RowChunks& chunks, std::int32_t* row_terms) {
  const __m256i flips = _mm256_set1_epi8(static_cast<char>(flip));
  for (std::size_t r0 = 0; r0 < count; r0 += kRows) {
    const std::size_t n = count - r0 < kRows ? count - r0 : kRows;
    const auto row = [&](std::size_t i) { return row_at(r0 + (i < n ? i : 0)); };
    __m256i pairs[kRows / 2];
#pragma GCC unroll 4
    for (std::size_t j = 0; j < kRows / 2; ++j) {
      pairs[j] = pair_rows(row_partials<Flip, Whole>(row(2 * j), chunks, flip, flips),
                           row_partials<Flip, Whole>(row(2 * j + 1), chunks, flip, flips));
    }
    const __m256i sums = octet_rows(quad_rows(pairs[0], pairs[1]), quad_rows(pairs[2], pairs[3]));
    auto* terms = reinterpret_cast<__m256i*>(row_terms + r0);
    if (n == kRows) {
      _mm256_storeu_si256(terms, _mm256_sub_epi32(_mm256_loadu_si256(terms), sums));
    } else {
      const __m256i lanes = dword_lanes(n);
      int* partial = reinterpret_cast<int*>(row_terms + r0);
      _mm256_maskstore_epi32(partial, lanes, _mm256_sub_epi32(_mm256_maskload_epi32(partial, lanes), sums));
    }
  }
}

template <bool Flip, typename RowAt>
void row_sums(std::uint8_t flip, RowAt row_at, std::size_t count, std::size_t k_bytes, std::int32_t* row_terms) {
  const RowChunks chunks(k_bytes);
  switch (chunks.whole) {
    case 0: return row_sums<Flip, 0>(flip, row_at, count, chunks, row_terms);
    case 1: return row_sums<Flip, 1>(flip, row_at, count, chunks, row_terms);
    case 2: return row_sums<Flip, 2>(flip, row_at, count, chunks, row_terms);
    case 3: return row_sums<Flip, 3>(flip, row_at, count, chunks, row_terms);
    case 4: return row_sums<Flip, 4>(flip, row_at, count, chunks, row_terms);
    default: return row_sums<Flip, -1>(flip, row_at, count, chunks, row_terms);
  }
}

template <typename RowAt>
void row_sums(std::uint8_t flip, RowAt row_at, std::size_t count, std::size_t k_bytes, std::int32_t* row_terms) {
  if (flip == 0) return row_sums<false>(flip, row_at, count, k_bytes, row_terms);
  row_sums<true>(flip, row_at, count, k_bytes, row_terms);
}

}  // namespace

void a_row_sums_avx2(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                     std::int32_t* row_terms) {
  row_sums(flip, [rows](std::size_t i) { return rows[i]; }, count, k_bytes, row_terms);
}

bool a_dense_row_sums_avx2(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                           std::int32_t* row_terms) {
  if (row_bytes >= kRowSumsMaxBytes) return false;  // the qword partials could pass 2^32
  row_sums(flip, [first, row_bytes](std::size_t i) { return first + i * row_bytes; }, count, row_bytes, row_terms);
  return true;
}

}  // namespace qtune::detail
