// The x86 GEMM families' common part: the ymm base (AVX2 and AVX-VNNI) and the zmm base (AVX-512
// VNNI), each its instruction set's vector operations (vector/vector_ops.h) plus the GEMM's
// loads. Include only from x86/<isa>/ translation units compiled with that ISA's flags. Each family
// adds its dot product and packing format on top (see gemm_ukernel_template.h).
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
#include "x86/avx2/avx2_vector.h"
#if defined(__AVX512F__)
#include "x86/avx512vnni/avx512_vector.h"
#endif

namespace qtune::detail {
namespace {

// The ymm families (AVX2, AVX-VNNI): AVX2's vector operations plus the GEMM's loads of B panels and
// A groups. C columns beyond the tile's valid ones are masked on store.
struct YmmBase : Avx2Vector {
  using Acc = Vec;
  using AVec = __m256i;
  using BVec = __m256i;

  // B panels are 64-byte aligned and every vector is 32 bytes: aligned loads.
  static BVec load_b(const std::uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  // vpbroadcastd straight from memory (a load-port micro-op, no shuffle).
  static AVec broadcast_a(const std::uint8_t* p) {
    return _mm256_set1_epi32(static_cast<int>(gemm_load_u32(p)));
  }
  static AVec broadcast_bits(std::uint32_t bits) { return _mm256_set1_epi32(static_cast<int>(bits)); }
  static AVec xor_bits(AVec a, std::uint32_t bits) { return _mm256_xor_si256(a, broadcast_bits(bits)); }
  static void prefetch_b(const std::uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
};

#if defined(__AVX512F__)
// The zmm family (AVX-512 VNNI): AVX-512's vector operations plus the GEMM's loads; ragged columns
// use store masks.
struct ZmmBase : Avx512Vector {
  using Acc = Vec;
  using AVec = __m512i;
  using BVec = __m512i;

  static BVec load_b(const std::uint8_t* p) { return _mm512_load_si512(p); }
  static AVec broadcast_a(const std::uint8_t* p) {
    return _mm512_set1_epi32(static_cast<int>(gemm_load_u32(p)));
  }
  static AVec broadcast_bits(std::uint32_t bits) { return _mm512_set1_epi32(static_cast<int>(bits)); }
  static AVec xor_bits(AVec a, std::uint32_t bits) { return _mm512_xor_si512(a, broadcast_bits(bits)); }
  static void prefetch_b(const std::uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
};
#endif

// The layout of the x86 families that multiply bytes four k at a time (AVX-VNNI, AVX-512 VNNI and
// the pair-clipping families): A PackedA::u8 (s8 activations flipped with +128 zero-point
// compensation), read in place too (4-byte broadcasts); B PackedB::s8 in groups of 4.
struct ByteQuadLayout {
  static constexpr int kKr = 4;
  static constexpr std::size_t kAElem = 1, kBElem = 1;
  static constexpr PackedA kAFormat = PackedA::u8;
  static constexpr PackedB kBFormat = PackedB::s8;
  static constexpr bool kInPlace = true;
};

// The peak loop of a family (gemm_dot_peak_loop) with its vector operands kept opaque in registers.
template <class T>
std::uint64_t x86_dot_peak_loop(std::size_t iterations) {
  return gemm_dot_peak_loop<T>(iterations, [](auto& v) { asm volatile("" : "+v"(v)); });
}

}  // namespace
}  // namespace qtune::detail
