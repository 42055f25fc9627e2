// The AVX2 A-panel packer for the x86 formats. In both, one k group of one row is 4 bytes
// (PackedA::u8: 4 bytes, s8 activations flipped to u8; PackedA::s16: 2 int16 widened from 2
// bytes), so a panel [k_groups][mr][4 bytes] is a transpose of 4-byte elements: 4 rows x 8 groups
// are loaded as 4 vectors and written as 8 16-byte runs of the 4 rows (2 rows: 8-byte runs).
//
// Packing is on the critical path (every call packs all of A once), so the vector loop is kept
// free of everything else: it handles only groups whose bytes all exist, of row blocks whose rows
// all exist; ragged rows (the last panel of M), the K tail and zero groups take the scalar tail.
// Row sums, needed only when some weight zero point is non-zero, are a separate pass over the
// (by then cache-hot) rows.
#include <immintrin.h>

#include <cstring>

#include "gemm/gemm_pack.h"

namespace qtune::detail {
namespace {

constexpr std::size_t kGroupBytes = 4;  // bytes of one k group of one row in both formats

// The activation bytes of one vector of 8 groups (u8 format: 32 bytes; s16: 16 bytes widened).
template <PackedA Format>
struct GroupLoader {
  bool a_signed = false;        // s16: sign- or zero-extend
  std::uint8_t flip_byte = 0;   // u8: 0x80 for s8 activations, else 0
  __m256i flip;                 // flip_byte in every byte

  static constexpr std::size_t kSourceBytesPerGroup = Format == PackedA::u8 ? 4 : 2;

  __m256i load8(const std::uint8_t* row, std::size_t g) const {
    if constexpr (Format == PackedA::u8) {
      return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 4 * g)), flip);
    } else {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * g));
      return a_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
    }
  }

  // The packed bits of group g of a row with k_bytes valid bytes (zero past them).
  std::uint32_t group(const std::uint8_t* row, std::size_t g, std::size_t k_bytes) const {
    std::uint32_t bits = 0;
    const std::size_t first = g * kSourceBytesPerGroup;
    for (std::size_t t = 0; t < kSourceBytesPerGroup && first + t < k_bytes; ++t) {
      const std::uint8_t byte = row[first + t];
      if constexpr (Format == PackedA::u8) {
        bits |= std::uint32_t{static_cast<std::uint8_t>(byte ^ flip_byte)} << (8 * t);
      } else {
        bits |= std::uint32_t{static_cast<std::uint16_t>(widen(byte))} << (16 * t);
      }
    }
    return bits;
  }

  std::int16_t widen(std::uint8_t byte) const {
    return a_signed ? static_cast<std::int16_t>(static_cast<std::int8_t>(byte)) : static_cast<std::int16_t>(byte);
  }

  // Sum of the packed values of a row (as the microkernel multiplies them).
  std::uint32_t row_sum(const std::uint8_t* row, std::size_t k_bytes) const {
    std::uint32_t sum = 0;
    std::size_t k = 0;
    if constexpr (Format == PackedA::u8) {
      __m256i acc = _mm256_setzero_si256();
      for (; k + 32 <= k_bytes; k += 32) {
        const __m256i v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + k)), flip);
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, _mm256_setzero_si256()));
      }
      alignas(32) std::uint64_t q[4];
      _mm256_store_si256(reinterpret_cast<__m256i*>(q), acc);
      sum = static_cast<std::uint32_t>(q[0] + q[1] + q[2] + q[3]);
      for (; k < k_bytes; ++k) sum += static_cast<std::uint8_t>(row[k] ^ flip_byte);
    } else {
      for (; k < k_bytes; ++k) sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(widen(row[k])));
    }
    return sum;
  }
};

// Groups [g, g + 8) of 4 rows: a 4 x 8 transpose of 4-byte elements into 8 runs of 16 bytes.
__attribute__((always_inline)) inline void transpose_store_4x8(std::uint8_t* out, std::size_t group_stride, __m256i r0,
                                                                __m256i r1, __m256i r2, __m256i r3) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
  const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
  const __m256i g04 = _mm256_unpacklo_epi64(t0, t2), g15 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i g26 = _mm256_unpacklo_epi64(t1, t3), g37 = _mm256_unpackhi_epi64(t1, t3);
  auto put = [&](std::size_t g, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(out + g * group_stride), v); };
  put(0, _mm256_castsi256_si128(g04));
  put(1, _mm256_castsi256_si128(g15));
  put(2, _mm256_castsi256_si128(g26));
  put(3, _mm256_castsi256_si128(g37));
  put(4, _mm256_extracti128_si256(g04, 1));
  put(5, _mm256_extracti128_si256(g15, 1));
  put(6, _mm256_extracti128_si256(g26, 1));
  put(7, _mm256_extracti128_si256(g37, 1));
}

// The same for 2 rows: 8 runs of 8 bytes.
__attribute__((always_inline)) inline void transpose_store_2x8(std::uint8_t* out, std::size_t group_stride, __m256i r0,
                                                                __m256i r1) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1);  // groups 0 1 | 4 5
  const __m256i t1 = _mm256_unpackhi_epi32(r0, r1);  // groups 2 3 | 6 7
  auto put = [&](std::size_t g, __m128i v) { _mm_storel_epi64(reinterpret_cast<__m128i*>(out + g * group_stride), v); };
  const __m128i lo0 = _mm256_castsi256_si128(t0), hi0 = _mm256_extracti128_si256(t0, 1);
  const __m128i lo1 = _mm256_castsi256_si128(t1), hi1 = _mm256_extracti128_si256(t1, 1);
  put(0, lo0);
  put(1, _mm_unpackhi_epi64(lo0, lo0));
  put(2, lo1);
  put(3, _mm_unpackhi_epi64(lo1, lo1));
  put(4, hi0);
  put(5, _mm_unpackhi_epi64(hi0, hi0));
  put(6, hi1);
  put(7, _mm_unpackhi_epi64(hi1, hi1));
}

template <PackedA Format>
void pack(const GroupLoader<Format>& loader, std::size_t mr, const std::uint8_t* const* rows, std::size_t row_count,
          std::size_t k_bytes, std::size_t k_groups, std::uint8_t* dst, std::int32_t* row_terms) {
  const std::size_t group_stride = mr * kGroupBytes;
  // Groups whose source bytes all exist: the vector loop's range, in steps of 8.
  const std::size_t whole = k_bytes / GroupLoader<Format>::kSourceBytesPerGroup;
  const std::size_t vector_groups = row_count == mr ? whole / 8 * 8 : 0;

  std::size_t i = 0;
  for (; i + 4 <= mr && vector_groups != 0; i += 4) {
    const std::uint8_t *p0 = rows[i], *p1 = rows[i + 1], *p2 = rows[i + 2], *p3 = rows[i + 3];
    std::uint8_t* out = dst + i * kGroupBytes;
    for (std::size_t g = 0; g < vector_groups; g += 8) {
      transpose_store_4x8(out + g * group_stride, group_stride, loader.load8(p0, g), loader.load8(p1, g),
                          loader.load8(p2, g), loader.load8(p3, g));
    }
  }
  for (; i + 2 <= mr && vector_groups != 0; i += 2) {
    const std::uint8_t *p0 = rows[i], *p1 = rows[i + 1];
    std::uint8_t* out = dst + i * kGroupBytes;
    for (std::size_t g = 0; g < vector_groups; g += 8) {
      transpose_store_2x8(out + g * group_stride, group_stride, loader.load8(p0, g), loader.load8(p1, g));
    }
  }
  // Scalar: the rows the vector loops did not cover (all of them when some row is missing), and
  // every row's groups past the vector range (ragged K tail, zero padding groups).
  for (std::size_t r = 0; r < mr; ++r) {
    const std::size_t first_group = r < i ? vector_groups : 0;
    std::uint8_t* out = dst + r * kGroupBytes;
    for (std::size_t g = first_group; g < k_groups; ++g) {
      const std::uint32_t bits = r < row_count ? loader.group(rows[r], g, k_bytes) : 0u;
      std::memcpy(out + g * group_stride, &bits, kGroupBytes);
    }
  }
  if (row_terms != nullptr) {
    for (std::size_t r = 0; r < row_count; ++r) {
      row_terms[r] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row_terms[r]) - loader.row_sum(rows[r], k_bytes));
    }
  }
}

}  // namespace

bool pack_a_panel_avx2(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                       std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms) {
  const auto mr = static_cast<std::size_t>(uk.mr);
  auto* out = static_cast<std::uint8_t*>(dst);
  if (uk.a_format == PackedA::s16 && uk.kr == 2) {
    const GroupLoader<PackedA::s16> loader{a_type == DType::s8, 0, _mm256_setzero_si256()};
    pack(loader, mr, rows, row_count, k_bytes, k_groups, out, row_terms);
    return true;
  }
  if (uk.a_format == PackedA::u8 && uk.kr == 4) {
    const std::uint8_t flip = a_type == DType::s8 ? 0x80 : 0;
    const GroupLoader<PackedA::u8> loader{false, flip, _mm256_set1_epi8(static_cast<char>(flip))};
    pack(loader, mr, rows, row_count, k_bytes, k_groups, out, row_terms);
    return true;
  }
  return false;
}

}  // namespace qtune::detail
