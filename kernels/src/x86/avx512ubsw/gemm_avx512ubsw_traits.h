// The AVX-512 BW GEMM family on bytes, for x86 CPUs with AVX-512 but no VNNI (Skylake-SP, Cascade
// Lake without DL Boost): vpmaddubsw multiplies u8 A by s8 B into int16 pair sums, vpmaddwd with
// ones widens them to int32 sums of four, vpaddd accumulates: 64 multiply-adds in three micro-ops,
// where the widening family (x86/avx512bw) takes four and packs A to int16 first. vpmaddubsw
// saturates its pair sums, so the B panels hold weights with every pair that could saturate
// clipped, and the driver adds what the clipping removed (gemm/pair_clipping.h): exact for every
// input, as fast as the weights are small. The layouts are the VNNI family's (A PackedA::u8,
// read in place too; B PackedB::s8 in groups of 4), and so are the tiles: 32 zmm registers hold up
// to 24 accumulators with the B vectors, a broadcast, the ones and the product.
//
// The tiles are instantiated in two translation units (gemm_avx512ubsw.cc,
// gemm_avx512ubsw_wide.cc): every tile carries an epilogue per rounding mode and output type.
// Include only from x86/avx512ubsw/ translation units (compiled with the family's -m flags).
#pragma once

#include <span>

#include "x86/clipped_products_avx2.h"
#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx512UbswTraits : ZmmBase, ByteQuadLayout {
  static constexpr Isa kIsa = Isa::avx512ubsw;
  static constexpr bool kClipsPairs = true;
  static constexpr ClippedProductsFn kClippedProducts = &clipped_products_avx2;

  static Acc dot(Acc acc, AVec a, BVec b) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(a, b), _mm512_set1_epi16(1)));
  }
  // The half-width forms (AVX-512 VL, ymm): the upper lanes of the result are zero.
  static BVec load_b_half(const std::uint8_t* p) {
    return _mm512_zextsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static Acc dot_half(Acc acc, AVec a, BVec b) {
    const __m256i pairs = _mm256_maddubs_epi16(_mm512_castsi512_si256(a), _mm512_castsi512_si256(b));
    const __m256i quads = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
    return _mm512_zextsi256_si512(_mm256_add_epi32(_mm512_castsi512_si256(acc), quads));
  }
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512ubsw_wide();  // 64 and 80 columns

}  // namespace qtune::detail
