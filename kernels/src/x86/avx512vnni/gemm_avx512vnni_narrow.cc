// AVX-512 VNNI GEMM tiles up to 16 columns wide (one vector per row); the family: gemm_avx512vnni_traits.h.
#include "x86/avx512vnni/gemm_avx512vnni_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kTiles[] = {
    make_gemm_ukernel<Avx512VnniTraits, 1, 16>("qu8-gemm-1x16c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 4>("qu8-gemm-4x4c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 16>("qu8-gemm-4x16c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 8>("qu8-gemm-8x8c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 12>("qu8-gemm-8x12c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 16>("qu8-gemm-8x16c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 16, 16>("qu8-gemm-16x16c4-avx512vnni"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512vnni_narrow() { return kTiles; }

}  // namespace qtune::detail
