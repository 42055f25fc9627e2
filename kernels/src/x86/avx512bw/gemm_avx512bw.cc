// The AVX-512 BW GEMM family's entry points and its tiles up to 48 columns (the family:
// gemm_avx512bw_traits.h). The tiles are those of the VNNI family, for the same reasons
// (x86/avx512vnni/gemm_avx512vnni_*.cc): the default tiles, the narrow and the one-row ones, and
// the seeds' 4x4, 8x8 and 8x12 that every family offers.
#include <vector>

#include "x86/avx512bw/gemm_avx512bw_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kNarrowAndMidTiles[] = {
    make_gemm_ukernel<Avx512BwByteBTraits, 1, 16>("qs16-gemm-1x16c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 4, 4>("qs16-gemm-4x4c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 4, 16>("qs16-gemm-4x16c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 8, 8>("qs16-gemm-8x8c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 8, 12>("qs16-gemm-8x12c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 8, 16>("qs16-gemm-8x16c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 16, 16>("qs16-gemm-16x16c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 12, 24>("qs16-gemm-12x24c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 8, 32>("qs16-gemm-8x32c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 12, 32>("qs16-gemm-12x32c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 6, 48>("qs16-gemm-6x48c2-avx512bw"),
    make_gemm_ukernel<Avx512BwTraits, 8, 48>("qs16-gemm-8x48c2-avx512bw"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avx512bw() { return {Avx512BwTraits::kIsa, "vpmaddwd + vpaddd zmm", &x86_dot_peak_loop<Avx512BwTraits>}; }

std::span<const GemmUkernel> gemm_ukernels_avx512bw() {
  static const std::vector<GemmUkernel> tiles = [] {
    std::vector<GemmUkernel> all(std::begin(kNarrowAndMidTiles), std::end(kNarrowAndMidTiles));
    const auto wide = gemm_ukernels_avx512bw_wide();
    all.insert(all.end(), wide.begin(), wide.end());
    return all;
  }();
  return tiles;
}

}  // namespace qtune::detail
