// The AVX2 A-panel packer for the x86 formats. In both, one k group of one row is 4 bytes
// (PackedA::u8: 4 bytes, s8 activations flipped to u8; PackedA::s16: 2 int16 widened from 2
// bytes), so a panel [k_groups][mr][4 bytes] is a transpose of 4-byte elements: 4 rows x 8 groups
// are loaded as 4 vectors and written as 8 16-byte runs of the 4 rows (2 rows: 8-byte runs).
//
// Packing is on the critical path (every call packs all of A once), so the transposing loop is
// kept free of everything else: it handles only groups whose bytes all exist, of row blocks whose
// rows all exist. The K tail and zero groups of those blocks go through the same transposes from
// partial loads (a first conv's K of 27 or 147 is mostly tail, MobileNetV2's K of 24 a third:
// docs/measurements.md, "A packing"); ragged panels (the last of M) go a row at a time, 8 groups
// per vector still. Row sums, needed only when some weight zero point is non-zero, are a separate
// pass of the row-sum kernels over the (by then cache-hot) rows of the panel.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "gemm/gemm_pack.h"

namespace qtune::detail {
namespace {

constexpr std::size_t kGroupBytes = 4;  // bytes of one k group of one row in both formats

// Bytes [begin, begin + 16) of a row of k_bytes, each xor flips, those past k_bytes 0; never
// reads past the row. A partial run of a row of at least 16 bytes is the row's last 16 bytes
// shifted down by a byte shuffle (a copy through memory would stall the load on its stores).
__m128i load_partial16(const std::uint8_t* row, std::size_t begin, std::size_t k_bytes, __m128i flips) {
  if (begin >= k_bytes) return _mm_setzero_si128();
  const std::size_t valid = k_bytes - begin;
  if (valid >= 16) return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + begin)), flips);
  if (k_bytes >= 16) {
    // Byte j of the result is byte j + 16 - valid of the last 16 (j < valid), else 0 (index 0x80).
    alignas(32) static constexpr std::int8_t kShift[32] = {
        0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
        -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128};
    const __m128i last = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k_bytes - 16)), flips);
    return _mm_shuffle_epi8(last, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShift + (16 - valid))));
  }
  alignas(16) std::uint8_t bytes[16] = {};  // rows shorter than 16 bytes: rare, a copy is fine
  const auto flip = static_cast<std::uint8_t>(_mm_cvtsi128_si32(flips));
  for (std::size_t j = 0; j < valid; ++j) bytes[j] = static_cast<std::uint8_t>(row[begin + j] ^ flip);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(bytes));
}

// The activation bytes of one vector of 8 groups (u8 format: 32 bytes; s16: 16 bytes widened).
template <PackedA Format>
struct GroupLoader {
  bool a_signed = false;        // s16: sign- or zero-extend
  std::uint8_t flip_byte = 0;   // u8: 0x80 for s8 activations, else 0
  __m256i flip;                 // flip_byte in every byte
  const std::uint8_t* k_order = nullptr;  // u8: the pair order's byte shuffles (gemm_pack.h), or null

  static constexpr std::size_t kSourceBytesPerGroup = Format == PackedA::u8 ? 4 : 2;

  __m256i load8(const std::uint8_t* row, std::size_t g) const {
    if constexpr (Format == PackedA::u8) {
      const __m256i bytes = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 4 * g)), flip);
      if (k_order == nullptr) return bytes;
      return _mm256_shuffle_epi8(bytes, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k_order + 4 * g)));
    } else {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * g));
      return a_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
    }
  }

  // row_terms[r] -= the sum of row r's values as packed, r < count, by the row-sum kernels
  // (gemm_pack.h), several rows at a time: s16 sums the bytes as they are widened.
  void subtract_row_sums(const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                         std::int32_t* row_terms) const {
    if constexpr (Format == PackedA::u8) {
      accumulate_a_row_terms(PackedA::u8, flip_byte, rows, count, k_bytes, row_terms);
    } else {
      accumulate_a_row_terms(a_signed ? PackedA::s8 : PackedA::u8, 0, rows, count, k_bytes, row_terms);
    }
  }

  // Groups [g, g + 8) of a row whose bytes may end inside them (bytes past k_bytes read as 0,
  // load_partial16; groups past the row all 0); never reads past the row.
  __m256i load8_partial(const std::uint8_t* row, std::size_t g, std::size_t k_bytes) const {
    const std::size_t begin = g * kSourceBytesPerGroup;
    const __m128i flips = _mm256_castsi256_si128(flip);
    if constexpr (Format == PackedA::u8) {
      const __m256i bytes =
          _mm256_set_m128i(load_partial16(row, begin + 16, k_bytes, flips), load_partial16(row, begin, k_bytes, flips));
      // Bytes past k_bytes are 0 and the order leaves them where they are.
      if (k_order == nullptr) return bytes;
      return _mm256_shuffle_epi8(bytes, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k_order + begin)));
    } else {
      const __m128i bytes = load_partial16(row, begin, k_bytes, flips);
      return a_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
    }
  }

  // All k_groups groups of one row (null: a row past the panel's, all zero), 8 at a time, one
  // 4-byte store per group.
  void row_groups(const std::uint8_t* row, std::size_t k_bytes, std::size_t k_groups, std::uint8_t* out,
                  std::size_t group_stride) const {
    for (std::size_t g = 0; g < k_groups; g += 8) {
      alignas(32) std::uint32_t groups[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(groups),
                         row != nullptr ? load8_partial(row, g, k_bytes) : _mm256_setzero_si256());
      const std::size_t count = std::min<std::size_t>(8, k_groups - g);
      for (std::size_t j = 0; j < count; ++j) std::memcpy(out + (g + j) * group_stride, &groups[j], kGroupBytes);
    }
  }
};

// Groups [g, g + 8) of 4 rows: a 4 x 8 transpose of 4-byte elements into 8 runs of 16 bytes, of
// which the first `groups` are stored (the panel ends after them).
__attribute__((always_inline)) inline void transpose_store_4x8(std::uint8_t* out, std::size_t group_stride, __m256i r0,
                                                                __m256i r1, __m256i r2, __m256i r3,
                                                                std::size_t groups = 8) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
  const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
  const __m256i g04 = _mm256_unpacklo_epi64(t0, t2), g15 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i g26 = _mm256_unpacklo_epi64(t1, t3), g37 = _mm256_unpackhi_epi64(t1, t3);
  auto put = [&](std::size_t g, __m128i v) {
    if (g < groups) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + g * group_stride), v);
  };
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
                                                                __m256i r1, std::size_t groups = 8) {
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1);  // groups 0 1 | 4 5
  const __m256i t1 = _mm256_unpackhi_epi32(r0, r1);  // groups 2 3 | 6 7
  auto put = [&](std::size_t g, __m128i v) {
    if (g < groups) _mm_storel_epi64(reinterpret_cast<__m128i*>(out + g * group_stride), v);
  };
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
  // Whole row blocks go through the transposes: the groups whose source bytes all exist in steps
  // of 8, then the rest (a ragged K tail, zero padding groups) as partial loads, of which only the
  // panel's groups are stored. A ragged panel (rows missing) goes a row at a time.
  const bool whole_block = row_count == mr;
  const std::size_t whole = k_bytes / GroupLoader<Format>::kSourceBytesPerGroup;
  const std::size_t vector_groups = whole_block ? std::min(whole / 8 * 8, k_groups / 8 * 8) : 0;

  std::size_t i = 0;
  for (; i + 4 <= mr && whole_block; i += 4) {
    const std::uint8_t *p0 = rows[i], *p1 = rows[i + 1], *p2 = rows[i + 2], *p3 = rows[i + 3];
    std::uint8_t* out = dst + i * kGroupBytes;
    std::size_t g = 0;
    for (; g < vector_groups; g += 8) {
      transpose_store_4x8(out + g * group_stride, group_stride, loader.load8(p0, g), loader.load8(p1, g),
                          loader.load8(p2, g), loader.load8(p3, g));
    }
    for (; g < k_groups; g += 8) {
      transpose_store_4x8(out + g * group_stride, group_stride, loader.load8_partial(p0, g, k_bytes),
                          loader.load8_partial(p1, g, k_bytes), loader.load8_partial(p2, g, k_bytes),
                          loader.load8_partial(p3, g, k_bytes), std::min<std::size_t>(8, k_groups - g));
    }
  }
  for (; i + 2 <= mr && whole_block; i += 2) {
    const std::uint8_t *p0 = rows[i], *p1 = rows[i + 1];
    std::uint8_t* out = dst + i * kGroupBytes;
    std::size_t g = 0;
    for (; g < vector_groups; g += 8) {
      transpose_store_2x8(out + g * group_stride, group_stride, loader.load8(p0, g), loader.load8(p1, g));
    }
    for (; g < k_groups; g += 8) {
      transpose_store_2x8(out + g * group_stride, group_stride, loader.load8_partial(p0, g, k_bytes),
                          loader.load8_partial(p1, g, k_bytes), std::min<std::size_t>(8, k_groups - g));
    }
  }
  // The rows the blocks did not cover (all of them in a ragged panel).
  for (std::size_t r = i; r < mr; ++r) {
    loader.row_groups(r < row_count ? rows[r] : nullptr, k_bytes, k_groups, dst + r * kGroupBytes, group_stride);
  }
  if (row_terms != nullptr) loader.subtract_row_sums(rows, row_count, k_bytes, row_terms);
}

}  // namespace

bool pack_a_panel_avx2(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                       std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms,
                       const std::uint8_t* k_order) {
  const auto mr = static_cast<std::size_t>(uk.mr);
  auto* out = static_cast<std::uint8_t*>(dst);
  if (uk.a_format == PackedA::s16 && uk.kr == 2 && k_order == nullptr) {
    const GroupLoader<PackedA::s16> loader{a_type == DType::s8, 0, _mm256_setzero_si256(), nullptr};
    pack(loader, mr, rows, row_count, k_bytes, k_groups, out, row_terms);
    return true;
  }
  if (uk.a_format == PackedA::u8 && uk.kr == 4) {
    const std::uint8_t flip = a_type == DType::s8 ? 0x80 : 0;
    const GroupLoader<PackedA::u8> loader{false, flip, _mm256_set1_epi8(static_cast<char>(flip)), k_order};
    pack(loader, mr, rows, row_count, k_bytes, k_groups, out, row_terms);
    return true;
  }
  return false;
}

}  // namespace qtune::detail
