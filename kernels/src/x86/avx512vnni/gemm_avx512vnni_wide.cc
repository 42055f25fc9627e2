// AVX-512 VNNI GEMM tiles 64 and 80 columns wide; the family: gemm_avx512vnni_traits.h.
#include "x86/avx512vnni/gemm_avx512vnni_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kTiles[] = {
    // One row, four vectors: matrix-vector layers (a network's classifier, M = 1) stream B at one
    // vpdpbusd per load, where taller tiles repeat the one row in every rows' products.
    make_gemm_ukernel<Avx512VnniTraits, 1, 64>("qu8-gemm-1x64c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 64>("qu8-gemm-4x64c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 6, 64>("qu8-gemm-6x64c4-avx512vnni"),
    // Five rows: M = 5 * k images (7x7: 49 of 50 rows used, where 4 rows use 49 of 52; 17x17 and
    // 35x35 likewise).
    make_gemm_ukernel<Avx512VnniTraits, 5, 64>("qu8-gemm-5x64c4-avx512vnni"),
    // Five vectors: N = 80 * k layers (InceptionV3's 80 and 160 channels, MobileNetV2's 160 and
    // 320) in whole panels, where 64- and 48-wide panels leave a part-empty one.
    make_gemm_ukernel<Avx512VnniTraits, 4, 80>("qu8-gemm-4x80c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 5, 80>("qu8-gemm-5x80c4-avx512vnni"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_avx512vnni_wide() { return kTiles; }

}  // namespace qtune::detail
