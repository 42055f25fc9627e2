// The AVX-512 vector operations (vector/vector_ops.h): 16 int32 lanes per zmm, ragged edges
// through store masks, requantization from requant_avx512.h (with a column's constants loaded
// once: requant_lanes). Include only from translation units compiled with AVX-512 F/BW/VL/DQ: the
// avx512vnni and amx folders (with VNNI: the operations are Isa::avx512vnni's) and the avx512bw
// folder (without: Isa::avx512bw's, whose products are vpmaddwd and an add).
#pragma once

#include "x86/avx512vnni/requant_avx512.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include "vector/vector_ops.h"

namespace qtune::detail {
namespace {

struct Avx512Vector {
#if defined(__AVX512VNNI__)
  static constexpr Isa kIsa = Isa::avx512vnni;
#else
  static constexpr Isa kIsa = Isa::avx512bw;
#endif
  static constexpr int kLanes = 16;
  static constexpr int kVectorRegisters = 32;
  using Vec = __m512i;

  static Vec zero() { return _mm512_setzero_si512(); }
  static Vec set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static Vec add(Vec a, Vec b) { return _mm512_add_epi32(a, b); }
  static Vec mullo(Vec a, Vec b) { return _mm512_mullo_epi32(a, b); }
  // vpdpwssd (AVX-512 VNNI) is vpmaddwd and the add in one instruction. Written as asm with the
  // accumulator tied in place: with the intrinsic, GCC 12 gave each accumulator two registers
  // and copied between them on every use (a move per product).
  static Vec madd(Vec acc, Vec x, Vec w) {
#if defined(__AVX512VNNI__)
    asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
    return acc;
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(x, w));
#endif
  }
  static Vec load(const std::int32_t* p) { return avx512::load16(p); }
  static Vec load_partial(const std::int32_t* p, std::size_t n) { return avx512::load_partial(p, n); }
  template <bool Signed>
  static Vec widen(__m128i bytes) {
    if constexpr (Signed) {
      return _mm512_cvtepi8_epi32(bytes);
    } else {
      return _mm512_cvtepu8_epi32(bytes);
    }
  }
  template <bool Signed>
  static Vec load_widen(const std::uint8_t* p) {
    return widen<Signed>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  template <bool Signed>
  static Vec load_widen_partial(const std::uint8_t* p, std::size_t n) {
    // Masked-off bytes are never read (no fault past the last of the n bytes).
    return widen<Signed>(_mm_maskz_loadu_epi8(avx512::lane_mask(n), p));
  }
  static void store(std::int32_t* p, Vec v) { _mm512_storeu_si512(p, v); }
  static void store(std::int32_t* p, Vec v, std::size_t n) { _mm512_mask_storeu_epi32(p, avx512::lane_mask(n), v); }
  static void store(std::uint8_t* p, Vec v, std::size_t n) { avx512::store_u8(p, v, n); }
  static void store(std::int8_t* p, Vec v, std::size_t n) { avx512::store_s8(p, v, n); }
  // The fused GEMM and depthwise epilogues take a kFp32Centred plan's accumulators as acc - X0
  // (folds_centred_origin_v; requant_avx512.h, scaled) and pass OriginFolded.
  static constexpr bool kFoldsCentredOrigin = true;
  template <RoundingMode Mode, bool OriginFolded = false>
  // Not forced inline: GCC then copies the long requantization into every ragged-tile path of the
  // GEMM epilogue, and the register allocator kept the tile's accumulators on the stack in the
  // main loop (docs/measurements.md, "GEMM microkernels"). The depthwise kernels run as fast without.
  static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return avx512::requantize16<Mode, OriginFolded>(v, plan, channel);
  }
  // A column's constants, loaded once for all the vectors of that column (the GEMM tile's rows).
  // Inlined always: a call would return the twelve vectors through memory.
  template <RoundingMode Mode>
  __attribute__((always_inline)) static avx512::RequantLanes<Mode> requant_lanes(const RequantConstants& plan,
                                                                                std::size_t channel) {
    return avx512::load_requant_lanes<Mode>(plan, channel);
  }
  template <RoundingMode Mode, bool OriginFolded = false>
  __attribute__((always_inline)) static Vec requantize(Vec v, const avx512::RequantLanes<Mode>& lanes,
                                                      const RequantConstants& plan) {
    return avx512::requantize16<Mode, OriginFolded>(v, lanes, plan);
  }
  // The short u8 epilogue (u8_full_range_epilogue), for the u8 store.
  template <RoundingMode Mode, bool OriginFolded = false>
  __attribute__((always_inline)) static Vec requantize_u8_full(Vec v, const avx512::RequantLanes<Mode>& lanes,
                                                              const RequantConstants& plan) {
    return avx512::requantize16_u8_full<Mode, OriginFolded>(v, lanes, plan);
  }
};
static_assert(Int32VectorOps<Avx512Vector>);

}  // namespace
}  // namespace qtune::detail
