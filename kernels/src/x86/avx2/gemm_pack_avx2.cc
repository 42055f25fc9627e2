// The AVX2 A-panel packer for the x86 formats. In both, one k group of one row is 4 bytes
// (PackedA::s16: 2 int16; PackedA::u8: 4 bytes), so a panel [k_groups][mr][4 bytes] is a transpose
// of 4-byte groups: each row yields 8 groups per vector (16 bytes widened to int16, or 32 bytes
// with the s8 -> u8 flip), and a 4 x 8 transpose of 4-byte elements writes 8 groups of 4 rows.
// Row sums ride along in vectors (vpmaddwd with ones / vpsadbw). Groups that do not fill a vector,
// the ragged K tail and rows past row_count are packed by the scalar tail below.
#include <immintrin.h>

#include <cstring>

#include "../../gemm_pack.h"

namespace qtune::detail {
namespace {

constexpr std::size_t kGroupBytes = 4;  // bytes of one k group of one row in both formats
constexpr std::size_t kMaxRows = 16;

// Store groups g < count (count 8, or 4 for a half vector) of 4, 2 or 1 rows at dst + g * group_stride.
void store_4_rows(std::uint8_t* dst, std::size_t group_stride, std::size_t count, __m256i r0, __m256i r1, __m256i r2,
                  __m256i r3) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
  const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
  const __m256i g04 = _mm256_unpacklo_epi64(t0, t2), g15 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i g26 = _mm256_unpacklo_epi64(t1, t3), g37 = _mm256_unpackhi_epi64(t1, t3);
  auto store = [&](std::size_t g, __m128i v) {
    if (g < count) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + g * group_stride), v);
  };
  store(0, _mm256_castsi256_si128(g04));
  store(4, _mm256_extracti128_si256(g04, 1));
  store(1, _mm256_castsi256_si128(g15));
  store(5, _mm256_extracti128_si256(g15, 1));
  store(2, _mm256_castsi256_si128(g26));
  store(6, _mm256_extracti128_si256(g26, 1));
  store(3, _mm256_castsi256_si128(g37));
  store(7, _mm256_extracti128_si256(g37, 1));
}

void store_2_rows(std::uint8_t* dst, std::size_t group_stride, std::size_t count, __m256i r0, __m256i r1) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);  // [g0 g1|g4 g5], [g2 g3|g6 g7]
  auto store = [&](std::size_t g, __m128i v) {
    if (g < count) _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + g * group_stride), v);
  };
  const __m128i lo0 = _mm256_castsi256_si128(t0), hi0 = _mm256_extracti128_si256(t0, 1);
  const __m128i lo1 = _mm256_castsi256_si128(t1), hi1 = _mm256_extracti128_si256(t1, 1);
  store(0, lo0);
  store(1, _mm_unpackhi_epi64(lo0, lo0));
  store(4, hi0);
  store(5, _mm_unpackhi_epi64(hi0, hi0));
  store(2, lo1);
  store(3, _mm_unpackhi_epi64(lo1, lo1));
  store(6, hi1);
  store(7, _mm_unpackhi_epi64(hi1, hi1));
}

void store_1_row(std::uint8_t* dst, std::size_t group_stride, std::size_t count, __m256i r0) {
  alignas(32) std::uint32_t groups[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(groups), r0);
  for (std::size_t g = 0; g < count; ++g) std::memcpy(dst + g * group_stride, &groups[g], kGroupBytes);
}

template <bool Wide>
struct Loader {
  bool a_signed;
  std::uint8_t flip_byte;  // bytes: 0x80 for s8 activations
  __m256i flip;
  // `count` (8 or 4) groups of the row starting at group g; lanes past them are 0. Reads only
  // the bytes of those groups.
  __m256i load(const std::uint8_t* row, std::size_t g, std::size_t count) const {
    if constexpr (Wide) {
      const __m128i bytes = count == 8 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * g))
                                       : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + 2 * g));
      const __m256i wide = a_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
      return count == 8 ? wide : _mm256_zextsi128_si256(_mm256_castsi256_si128(wide));
    } else {
      if (count == 8) return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 4 * g)), flip);
      const __m128i half = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 4 * g)),
                                         _mm256_castsi256_si128(flip));
      return _mm256_zextsi128_si256(half);
    }
  }
  // Adds the row's 8 groups to a vector of partial sums (int32 lanes for int16, int64 for bytes).
  static __m256i add_sum(__m256i sum, __m256i v) {
    if constexpr (Wide) {
      return _mm256_add_epi32(sum, _mm256_madd_epi16(v, _mm256_set1_epi16(1)));
    } else {
      return _mm256_add_epi64(sum, _mm256_sad_epu8(v, _mm256_setzero_si256()));
    }
  }
  static std::uint32_t reduce(__m256i sum) {
    alignas(32) std::uint64_t q[4];
    if constexpr (Wide) {
      alignas(32) std::uint32_t d[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(d), sum);
      std::uint32_t total = 0;
      for (std::uint32_t x : d) total += x;
      return total;
    } else {
      _mm256_store_si256(reinterpret_cast<__m256i*>(q), sum);
      return static_cast<std::uint32_t>(q[0] + q[1] + q[2] + q[3]);
    }
  }
  // One element of the scalar tail, as the packed value's bits, and its contribution to the sum.
  std::uint32_t element(std::uint8_t byte) const {
    if constexpr (Wide) {
      return static_cast<std::uint16_t>(a_signed ? static_cast<std::int16_t>(static_cast<std::int8_t>(byte)) : byte);
    } else {
      return static_cast<std::uint8_t>(byte ^ flip_byte);
    }
  }
  std::uint32_t element_sum(std::uint8_t byte) const {
    if constexpr (Wide) {
      return static_cast<std::uint32_t>(a_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : byte);
    } else {
      return element(byte);
    }
  }
};

template <bool Wide>
void pack(std::size_t mr, const Loader<Wide>& loader, const std::uint8_t* const* rows, std::size_t row_count,
          std::size_t k_bytes, std::size_t k_groups, std::uint8_t* dst, std::int32_t* row_terms) {
  constexpr std::size_t kr = Wide ? 2 : 4;
  const std::size_t group_stride = mr * kGroupBytes;
  const std::size_t whole_groups = k_bytes / kr;  // groups whose bytes are all valid
  __m256i sums[kMaxRows];
  for (std::size_t i = 0; i < mr; ++i) sums[i] = _mm256_setzero_si256();
  std::size_t vector_groups = 0;  // groups packed by the vector steps (8 at a time, then 4)
  auto step = [&](std::size_t g, std::size_t count) {
    auto row_vector = [&](std::size_t i) {
      if (i >= row_count) return _mm256_setzero_si256();
      const __m256i v = loader.load(rows[i], g, count);
      sums[i] = Loader<Wide>::add_sum(sums[i], v);
      return v;
    };
    std::uint8_t* out = dst + g * group_stride;
    std::size_t i = 0;
    for (; i + 4 <= mr; i += 4) {
      const __m256i r0 = row_vector(i), r1 = row_vector(i + 1), r2 = row_vector(i + 2), r3 = row_vector(i + 3);
      store_4_rows(out + i * kGroupBytes, group_stride, count, r0, r1, r2, r3);
    }
    if (i + 2 <= mr) {
      const __m256i r0 = row_vector(i), r1 = row_vector(i + 1);
      store_2_rows(out + i * kGroupBytes, group_stride, count, r0, r1);
      i += 2;
    }
    if (i < mr) store_1_row(out + i * kGroupBytes, group_stride, count, row_vector(i));
    vector_groups = g + count;
  };
  for (std::size_t g = 0; g + 8 <= whole_groups; g += 8) step(g, 8);
  if (vector_groups + 4 <= whole_groups) step(vector_groups, 4);
  for (std::size_t i = 0; i < mr; ++i) {
    std::uint32_t sum = Loader<Wide>::reduce(sums[i]);
    for (std::size_t g = vector_groups; g < k_groups; ++g) {
      std::uint8_t* out = dst + g * group_stride + i * kGroupBytes;
      if constexpr (Wide) {
        std::uint16_t values[2] = {0, 0};
        for (std::size_t t = 0; t < 2; ++t) {
          const std::size_t k = g * 2 + t;
          if (i < row_count && k < k_bytes) {
            values[t] = static_cast<std::uint16_t>(loader.element(rows[i][k]));
            sum += loader.element_sum(rows[i][k]);
          }
        }
        std::memcpy(out, values, kGroupBytes);
      } else {
        std::uint8_t values[4] = {0, 0, 0, 0};
        for (std::size_t t = 0; t < 4; ++t) {
          const std::size_t k = g * 4 + t;
          if (i < row_count && k < k_bytes) {
            values[t] = static_cast<std::uint8_t>(loader.element(rows[i][k]));
            sum += values[t];
          }
        }
        std::memcpy(out, values, kGroupBytes);
      }
    }
    if (row_terms != nullptr && i < row_count) {
      row_terms[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row_terms[i]) - sum);
    }
  }
}

}  // namespace

bool pack_a_panel_avx2(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                       std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms) {
  const auto mr = static_cast<std::size_t>(uk.mr);
  if (mr > kMaxRows) return false;
  auto* out = static_cast<std::uint8_t*>(dst);
  if (uk.a_format == PackedA::s16 && uk.kr == 2) {
    pack<true>(mr, Loader<true>{a_type == DType::s8, 0, _mm256_setzero_si256()}, rows, row_count, k_bytes, k_groups, out,
               row_terms);
    return true;
  }
  if (uk.a_format == PackedA::u8 && uk.kr == 4) {
    const std::uint8_t flip = a_type == DType::s8 ? 0x80 : 0;
    pack<false>(mr, Loader<false>{false, flip, _mm256_set1_epi8(static_cast<char>(flip))}, rows, row_count, k_bytes, k_groups, out, row_terms);
    return true;
  }
  return false;
}

}  // namespace qtune::detail
