// The AVX2 GEMM family on bytes, for x86 CPUs with AVX2 but no VNNI (AMD Zen 2 and Zen 3, Haswell,
// Broadwell): vpmaddubsw (u8 A x s8 B into saturating int16 pair sums), vpmaddwd with ones, vpaddd
// on ymm, 32 multiply-adds in three micro-ops where the widening family (x86/avx2) takes four and
// packs A to int16 first. Exact through clipped weight pairs and the driver's corrections
// (gemm/pair_clipping.h). The layouts are AVX-VNNI's: A PackedA::u8 (read in place too), B
// PackedB::s8 in groups of 4; the tiles too, within 16 ymm registers (the ones vector takes one).
#include "x86/clipped_products_avx2.h"
#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx2UbswTraits : YmmBase, ByteQuadLayout {
  static constexpr Isa kIsa = Isa::avx2ubsw;
  static constexpr bool kClipsPairs = true;
  static constexpr ClippedProductsFn kClippedProducts = &clipped_products_avx2;

  static Acc dot(Acc acc, AVec a, BVec b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1)));
  }

  // The pair sums and the ones vector.
  static constexpr int kDotScratch = 2;

  // dot with B as vpmaddubsw's memory operand, in asm for the reason Avx2Traits::dot_from gives.
  static Acc dot_from(Acc acc, AVec a, const std::uint8_t* b) {
    __m256i pairs;
    asm("vpmaddubsw %2, %1, %0" : "=x"(pairs) : "x"(a), "m"(*reinterpret_cast<const __m256i*>(b)));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
};

constexpr GemmUkernel kAvx2UbswUkernels[] = {
    make_gemm_ukernel<Avx2UbswTraits, 1, 8>("qu8-gemm-1x8c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 4, 4>("qu8-gemm-4x4c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 4, 8>("qu8-gemm-4x8c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 4, 16>("qu8-gemm-4x16c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 6, 16>("qu8-gemm-6x16c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 8, 8>("qu8-gemm-8x8c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 8, 12>("qu8-gemm-8x12c4-avx2ubsw"),
    make_gemm_ukernel<Avx2UbswTraits, 8, 16>("qu8-gemm-8x16c4-avx2ubsw"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avx2ubsw() {
  return {Avx2UbswTraits::kIsa, "vpmaddubsw + vpmaddwd + vpaddd ymm", &x86_dot_peak_loop<Avx2UbswTraits>};
}

std::span<const GemmUkernel> gemm_ukernels_avx2ubsw() { return kAvx2UbswUkernels; }

}  // namespace qtune::detail
