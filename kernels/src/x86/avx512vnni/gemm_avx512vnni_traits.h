// The AVX-512 VNNI GEMM family: EVEX vpdpbusd on zmm (u8 x s8, four products per int32 lane),
// 16 columns per vector, ragged columns stored with masks. A is PackedA::u8 (s8 activations
// flipped with +128 zero-point compensation), B PackedB::s8 in groups of 4; A can also be read in
// place. 32 zmm registers: up to 25 accumulators (12x32, 8x48, 6x64, 5x80) leave room for B and broadcasts.
//
// The family's tiles are instantiated in three translation units by width (gemm_avx512vnni_*.cc):
// every tile carries an epilogue per rounding mode and output type, and in one file they were the
// build's longest compile by far, under the sanitizers long after the other core had run out of
// work (docs/measurements.md, "Build and test times").
// Include only from x86/avx512vnni/ translation units (compiled with the family's -m flags).
#pragma once

#include <span>

#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx512VnniTraits : ZmmBase, ByteQuadLayout {

  static Acc dot(Acc acc, AVec a, BVec b) { return _mm512_dpbusd_epi32(acc, a, b); }
  // The half-width forms (AVX-512 VL, ymm): the upper lanes of the result are zero. The casts
  // cost nothing; a 256-bit EVEX instruction writes the low half of the same register.
  static BVec load_b_half(const std::uint8_t* p) {
    return _mm512_zextsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static Acc dot_half(Acc acc, AVec a, BVec b) {
    return _mm512_zextsi256_si512(
        _mm256_dpbusd_epi32(_mm512_castsi512_si256(acc), _mm512_castsi512_si256(a), _mm512_castsi512_si256(b)));
  }

  // In-kernel row sums (GemmTileKernel's AWalk::row_sums): 64 bytes of a row summed into the 16
  // lanes of `sums` by one vpdpbusd with ones, flipped first where `flip` is set (the bytes the
  // tile multiplies are A XOR flip, four copies of one byte); the partial form reads only the first
  // n (< 64) bytes, with a byte mask that never touches memory past them.
  static constexpr std::size_t kRowChunkBytes = 64;
  static constexpr int kRegisters = 32;
  static Acc sum_row_chunk(Acc sums, const std::uint8_t* p, std::uint32_t flip) {
    __m512i bytes = _mm512_loadu_si512(p);
    if (flip != 0) bytes = _mm512_xor_si512(bytes, _mm512_set1_epi32(static_cast<int>(flip)));
    return _mm512_dpbusd_epi32(sums, bytes, _mm512_set1_epi8(1));
  }
  static Acc sum_row_chunk_partial(Acc sums, const std::uint8_t* p, std::size_t n, std::uint32_t flip) {
    const __mmask64 valid = (std::uint64_t{1} << n) - 1;
    __m512i bytes = _mm512_maskz_loadu_epi8(valid, p);
    if (flip != 0) bytes = _mm512_xor_si512(bytes, _mm512_maskz_set1_epi8(valid, static_cast<char>(flip & 0xFF)));
    return _mm512_dpbusd_epi32(sums, bytes, _mm512_set1_epi8(1));
  }
  static std::int32_t reduce_add(Acc sums) { return _mm512_reduce_add_epi32(sums); }
};

}  // namespace

// The tiles of each width class, in the order gemm_ukernels_avx512vnni() lists them.
std::span<const GemmUkernel> gemm_ukernels_avx512vnni_narrow();  // up to 16 columns: one vector per row
std::span<const GemmUkernel> gemm_ukernels_avx512vnni_mid();     // 24 to 48 columns
std::span<const GemmUkernel> gemm_ukernels_avx512vnni_wide();    // 64 and 80 columns

}  // namespace qtune::detail
