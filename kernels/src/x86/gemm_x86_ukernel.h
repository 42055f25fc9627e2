// x86 vector building blocks shared by the GEMM families: the ymm part (AVX2 and AVX-VNNI) and the
// zmm part (AVX-512 VNNI). Include only from x86/<isa>/ translation units compiled with that ISA's
// flags. Each family adds its dot product and packing format on top (see gemm_ukernel_template.h).
//
// Everything here is in an anonymous namespace on purpose: the same inline functions are compiled
// with different -m flags in different translation units, and internal linkage keeps the linker
// from merging an AVX-VNNI-compiled copy into the AVX2 kernels (one-definition rule vs. dispatch).
#pragma once

// First include of <immintrin.h> in the TU, wrapped like requant_avx512.h does: GCC 12's
// avx512fintrin.h trips -Wmaybe-uninitialized on its own "undefined" placeholder (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "gemm/gemm_ukernel_template.h"
#include "x86/avx2/requant_avx2.h"
#if defined(__AVX512F__)
#include "x86/avx512vnni/requant_avx512.h"
#endif

namespace qtune::detail {
namespace {

// 8 int32 lanes per ymm; C columns beyond the tile's valid ones are masked on store.
struct YmmBase {
  static constexpr int kLanes = 8;
  using Acc = __m256i;
  using AVec = __m256i;
  using BVec = __m256i;

  static Acc zero() { return _mm256_setzero_si256(); }
  static Acc load(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::int32_t* p, Acc x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }
  static Acc set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static Acc add(Acc x, Acc y) { return _mm256_add_epi32(x, y); }
  static Acc mullo(Acc x, Acc y) { return _mm256_mullo_epi32(x, y); }

  // B panels are 64-byte aligned and every vector is 32 bytes: aligned loads.
  static BVec load_b(const std::uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  // vpbroadcastd straight from memory (a load-port micro-op, no shuffle).
  static AVec broadcast_a(const std::uint8_t* p) {
    return _mm256_set1_epi32(static_cast<int>(gemm_load_u32(p)));
  }
  static AVec broadcast_bits(std::uint32_t bits) { return _mm256_set1_epi32(static_cast<int>(bits)); }
  static AVec xor_bits(AVec a, std::uint32_t bits) { return _mm256_xor_si256(a, broadcast_bits(bits)); }
  static void prefetch_b(const std::uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }

  static void store_s32(std::int32_t* p, Acc x, std::size_t n) {
    if (n == kLanes) {
      store(p, x);
    } else {
      _mm256_maskstore_epi32(reinterpret_cast<int*>(p), avx2::lane_mask(n), x);
    }
  }
  static void store_u8(std::uint8_t* p, Acc x, std::size_t n) { avx2::store_u8(p, x, n); }
  static void store_s8(std::int8_t* p, Acc x, std::size_t n) { avx2::store_s8(p, x, n); }
  template <RoundingMode Mode>
  static Acc requantize(Acc x, const RequantConstants& plan, std::size_t channel) {
    return avx2::requantize8<Mode>(x, plan, channel);
  }
};

#if defined(__AVX512F__)
// 16 int32 lanes per zmm; ragged columns use AVX-512 store masks.
struct ZmmBase {
  static constexpr int kLanes = 16;
  using Acc = __m512i;
  using AVec = __m512i;
  using BVec = __m512i;

  static Acc zero() { return _mm512_setzero_si512(); }
  static Acc load(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  static void store(std::int32_t* p, Acc x) { _mm512_storeu_si512(p, x); }
  static Acc set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static Acc add(Acc x, Acc y) { return _mm512_add_epi32(x, y); }
  static Acc mullo(Acc x, Acc y) { return _mm512_mullo_epi32(x, y); }

  static BVec load_b(const std::uint8_t* p) { return _mm512_load_si512(p); }
  static AVec broadcast_a(const std::uint8_t* p) {
    return _mm512_set1_epi32(static_cast<int>(gemm_load_u32(p)));
  }
  static AVec broadcast_bits(std::uint32_t bits) { return _mm512_set1_epi32(static_cast<int>(bits)); }
  static AVec xor_bits(AVec a, std::uint32_t bits) { return _mm512_xor_si512(a, broadcast_bits(bits)); }
  static void prefetch_b(const std::uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }

  static void store_s32(std::int32_t* p, Acc x, std::size_t n) {
    _mm512_mask_storeu_epi32(p, avx512::lane_mask(n), x);
  }
  static void store_u8(std::uint8_t* p, Acc x, std::size_t n) { avx512::store_u8(p, x, n); }
  static void store_s8(std::int8_t* p, Acc x, std::size_t n) { avx512::store_s8(p, x, n); }
  template <RoundingMode Mode>
  static Acc requantize(Acc x, const RequantConstants& plan, std::size_t channel) {
    return avx512::requantize16<Mode>(x, plan, channel);
  }
  // A tile column's constants, loaded once for all its rows (gemm_ukernel_template.h). Inlined
  // always: a call would return the twelve vectors through memory.
  template <RoundingMode Mode>
  __attribute__((always_inline)) static avx512::RequantLanes<Mode> requant_lanes(const RequantConstants& plan,
                                                                                std::size_t channel) {
    return avx512::load_requant_lanes<Mode>(plan, channel);
  }
  template <RoundingMode Mode>
  __attribute__((always_inline)) static Acc requantize(Acc x, const avx512::RequantLanes<Mode>& lanes,
                                                      const RequantConstants& plan) {
    return avx512::requantize16<Mode>(x, lanes, plan);
  }
};
#endif

// The peak loop of a family (gemm_dot_peak_loop) with its vector operands kept opaque in registers.
template <class T>
std::uint64_t x86_dot_peak_loop(std::size_t iterations) {
  return gemm_dot_peak_loop<T>(iterations, [](auto& v) { asm volatile("" : "+v"(v)); });
}

}  // namespace
}  // namespace qtune::detail
