// The AVX-512 BW GEMM family, for x86 CPUs with AVX-512 but no VNNI (Skylake-SP, Cascade Lake
// without DL Boost): A and B widened to int16 (PackedA::s16 / PackedB::s16, kr 2, as the AVX2
// family packs them; the one-row tiles keep B int8, below) and vpmaddwd on zmm, 32 exact MACs per
// instruction plus a vpaddd. vpmaddubsw
// would take the bytes directly, but its int16 pair sums saturate (255 * 127 * 2 > 32767).
// 32 zmm registers: the tiles of the VNNI family fit (up to 25 accumulators, the B vectors, one A
// broadcast and the product before its add).
//
// The tiles are instantiated in two translation units (gemm_avx512bw.cc, gemm_avx512bw_wide.cc):
// every tile carries an epilogue per rounding mode and output type, and compile time grows with them.
// Include only from x86/avx512bw/ translation units (compiled with the family's -m flags).
#pragma once

#include <span>

#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx512BwTraits : ZmmBase {
  static constexpr int kKr = 2;
  static constexpr std::size_t kAElem = 2, kBElem = 2;
  static constexpr PackedA kAFormat = PackedA::s16;
  static constexpr PackedB kBFormat = PackedB::s16;
  static constexpr bool kInPlace = false;

  static Acc dot(Acc acc, AVec a, BVec b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
  // The half-width forms (AVX-512 VL, ymm) for a last vector at most half full: the upper lanes
  // of the result are zero (see Avx512VnniTraits).
  static BVec load_b_half(const std::uint8_t* p) {
    return _mm512_zextsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static Acc dot_half(Acc acc, AVec a, BVec b) {
    const __m256i product = _mm256_madd_epi16(_mm512_castsi512_si256(a), _mm512_castsi512_si256(b));
    return _mm512_zextsi256_si512(_mm256_add_epi32(_mm512_castsi512_si256(acc), product));
  }
};

// The one-row tiles (matrix-vector layers, M = 1), which stream B once with one product per load:
// B stays int8 in memory (a pair of k per column, 32 bytes a vector) and is widened as it is loaded
// (vpmovsxbw from memory), half the bytes of an int16 panel. Taller tiles keep int16 B: there the
// widening's extra micro-op per B vector costs more than the bytes it saves.
struct Avx512BwByteBTraits : Avx512BwTraits {
  static constexpr std::size_t kBElem = 1;
  static constexpr PackedB kBFormat = PackedB::s8;

  static BVec load_b(const std::uint8_t* p) {
    return _mm512_cvtepi8_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static BVec load_b_half(const std::uint8_t* p) {
    return _mm512_zextsi256_si512(_mm256_cvtepi8_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(p))));
  }
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512bw_wide();  // 64 and 80 columns

}  // namespace qtune::detail
