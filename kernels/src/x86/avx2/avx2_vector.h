// The AVX2 vector operations (vector/vector_ops.h): 8 int32 lanes per ymm, ragged edges through
// vpmaskmovd and partial byte stores, requantization from requant_avx2.h. The AVX2 and AVX-VNNI
// families build on it. Include only from translation units compiled with -mavx2.
#pragma once

#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "vector/vector_ops.h"
#include "x86/avx2/requant_avx2.h"

namespace qtune::detail {
namespace {

struct Avx2Vector {
  static constexpr Isa kIsa = Isa::avx2;
  static constexpr int kLanes = 8;
  static constexpr int kVectorRegisters = 16;
  using Vec = __m256i;

  static Vec zero() { return _mm256_setzero_si256(); }
  static Vec set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static Vec add(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  static Vec mullo(Vec a, Vec b) { return _mm256_mullo_epi32(a, b); }
  static Vec madd(Vec acc, Vec x, Vec w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w)); }
  static Vec load(const std::int32_t* p) { return avx2::load8(p); }
  static Vec load_partial(const std::int32_t* p, std::size_t n) { return avx2::load_partial(p, n); }
  template <bool Signed>
  static Vec widen(__m128i bytes) {
    if constexpr (Signed) {
      return _mm256_cvtepi8_epi32(bytes);
    } else {
      return _mm256_cvtepu8_epi32(bytes);
    }
  }
  template <bool Signed>
  static Vec load_widen(const std::uint8_t* p) {
    return widen<Signed>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  template <bool Signed>
  static Vec load_widen_partial(const std::uint8_t* p, std::size_t n) {
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, p, n);  // never reads past the last of the n bytes
    return widen<Signed>(_mm_cvtsi64_si128(static_cast<long long>(bytes)));
  }
  static void store(std::int32_t* p, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static void store(std::int32_t* p, Vec v, std::size_t n) {
    if (n == kLanes) {
      store(p, v);
    } else {
      _mm256_maskstore_epi32(reinterpret_cast<int*>(p), avx2::lane_mask(n), v);
    }
  }
  static void store(std::uint8_t* p, Vec v, std::size_t n) { avx2::store_u8(p, v, n); }
  static void store(std::int8_t* p, Vec v, std::size_t n) { avx2::store_s8(p, v, n); }
  // The fused GEMM and depthwise epilogues take a kFp32Centred plan's accumulators as acc - X0
  // (folds_centred_origin_v; requant_avx2.h, requantize8) and pass OriginFolded, inside the
  // EpilogueScope that rounds down.
  static constexpr bool kFoldsCentredOrigin = true;
  template <RoundingMode Mode>
  using EpilogueScope = std::conditional_t<Mode == kFp32Centred, avx2::RoundDownScope, NoEpilogueScope>;
  template <RoundingMode Mode, bool OriginFolded = false>
  // Not forced inline: GCC then copies the long requantization into every ragged-tile path of the
  // GEMM epilogue, and the register allocator kept the tile's accumulators on the stack in the
  // main loop (docs/measurements.md, "GEMM microkernels"). The depthwise kernels run as fast without.
  static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return avx2::requantize8<Mode, OriginFolded>(v, plan, channel);
  }
  // A column's constants, loaded once for all the vectors of that column (the GEMM tile's rows),
  // and the requantization inlined with them. Inlined always: a call would return the constants
  // through memory, and the out-of-line requantize above reloads and re-derives them per vector.
  template <RoundingMode Mode>
  __attribute__((always_inline)) static avx2::RequantLanes<Mode> requant_lanes(const RequantConstants& plan,
                                                                              std::size_t channel) {
    return avx2::load_requant_lanes<Mode>(plan, channel);
  }
  template <RoundingMode Mode, bool OriginFolded = false>
  __attribute__((always_inline)) static Vec requantize(Vec v, const avx2::RequantLanes<Mode>& lanes,
                                                      const RequantConstants& plan) {
    return avx2::requantize8<Mode, OriginFolded>(v, lanes, plan);
  }
};
static_assert(Int32VectorOps<Avx2Vector>);

}  // namespace
}  // namespace qtune::detail
