// The AVX-VNNI GEMM family: VEX vpdpbusd on ymm (u8 x s8, four products per int32 lane, no
// intermediate saturation). A is PackedA::u8 (s8 activations flipped with +128 zero-point
// compensation), B PackedB::s8 in groups of 4; A can also be read in place (4-byte broadcasts).
#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct AvxVnniTraits : YmmBase, ByteQuadLayout {
  static constexpr Isa kIsa = Isa::avxvnni;

  static Acc dot(Acc acc, AVec a, BVec b) { return _mm256_dpbusd_avx_epi32(acc, a, b); }
};

constexpr GemmUkernel kAvxVnniUkernels[] = {
    make_gemm_ukernel<AvxVnniTraits, 1, 8>("qu8-gemm-1x8c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 4, 4>("qu8-gemm-4x4c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 4, 8>("qu8-gemm-4x8c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 4, 16>("qu8-gemm-4x16c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 6, 16>("qu8-gemm-6x16c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 8, 8>("qu8-gemm-8x8c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 8, 12>("qu8-gemm-8x12c4-avxvnni"),
    make_gemm_ukernel<AvxVnniTraits, 8, 16>("qu8-gemm-8x16c4-avxvnni"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avxvnni() { return {AvxVnniTraits::kIsa, "vpdpbusd ymm (VEX)", &x86_dot_peak_loop<AvxVnniTraits>}; }

std::span<const GemmUkernel> gemm_ukernels_avxvnni() { return kAvxVnniUkernels; }

}  // namespace qtune::detail
