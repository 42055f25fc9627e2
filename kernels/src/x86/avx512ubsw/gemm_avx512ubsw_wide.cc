// The AVX-512 BW byte family's tiles of 64 and 80 columns (gemm_avx512ubsw_traits.h).
#include "x86/avx512ubsw/gemm_avx512ubsw_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kTiles[] = {
    make_gemm_ukernel<Avx512UbswTraits, 1, 64>("qu8-gemm-1x64c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 4, 64>("qu8-gemm-4x64c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 5, 64>("qu8-gemm-5x64c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 6, 64>("qu8-gemm-6x64c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 4, 80>("qu8-gemm-4x80c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 5, 80>("qu8-gemm-5x80c4-avx512ubsw"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512ubsw_wide() { return kTiles; }

}  // namespace qtune::detail
