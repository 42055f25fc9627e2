// AVX-512 VNNI GEMM tiles 24 to 48 columns wide; the family: gemm_avx512vnni_traits.h.
#include "x86/avx512vnni/gemm_avx512vnni_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kTiles[] = {
    // A vector and a half: N = 24 layers (MobileNetV2's projections to 24 channels) without the
    // products of 8 padding columns (kHalfLast); 24 accumulators, like 12x32's budget.
    make_gemm_ukernel<Avx512VnniTraits, 12, 24>("qu8-gemm-12x24c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 32>("qu8-gemm-8x32c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 12, 32>("qu8-gemm-12x32c4-avx512vnni"),
    // Three vectors: fewer broadcasts per vpdpbusd, and N = 48 * k layers without a half-empty
    // last panel (MobileNet's 144 / 192 channels).
    make_gemm_ukernel<Avx512VnniTraits, 6, 48>("qu8-gemm-6x48c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 48>("qu8-gemm-8x48c4-avx512vnni"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512vnni_mid() { return kTiles; }

}  // namespace qtune::detail
