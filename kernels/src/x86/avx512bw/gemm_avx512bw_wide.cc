// The AVX-512 BW GEMM family's tiles of 64 and 80 columns (gemm_avx512bw_traits.h).
#include "x86/avx512bw/gemm_avx512bw_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kTiles[] = {
    make_gemm_ukernel<Avx512BwByteBTraits, 1, 64>("qs16-gemm-1x64c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 4, 64>("qs16-gemm-4x64c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 5, 64>("qs16-gemm-5x64c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 6, 64>("qs16-gemm-6x64c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 4, 80>("qs16-gemm-4x80c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 5, 80>("qs16-gemm-5x80c2-avx512bw"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512bw_wide() { return kTiles; }

}  // namespace qtune::detail
