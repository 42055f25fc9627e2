// The AVX-512 BW byte family's entry points and its tiles up to 48 columns (the family:
// gemm_avx512ubsw_traits.h): the VNNI family's tiles, with the seeds' 4x4, 8x8 and 8x12 that every
// family offers.
#include <vector>

#include "x86/avx512ubsw/gemm_avx512ubsw_traits.h"

namespace qtune::detail {
namespace {

constexpr GemmUkernel kNarrowAndMidTiles[] = {
    make_gemm_ukernel<Avx512UbswTraits, 1, 16>("qu8-gemm-1x16c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 4, 4>("qu8-gemm-4x4c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 4, 16>("qu8-gemm-4x16c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 8, 8>("qu8-gemm-8x8c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 8, 12>("qu8-gemm-8x12c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 8, 16>("qu8-gemm-8x16c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 16, 16>("qu8-gemm-16x16c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 12, 24>("qu8-gemm-12x24c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 8, 32>("qu8-gemm-8x32c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 12, 32>("qu8-gemm-12x32c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 6, 48>("qu8-gemm-6x48c4-avx512ubsw"),
    make_gemm_ukernel<Avx512UbswTraits, 8, 48>("qu8-gemm-8x48c4-avx512ubsw"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avx512ubsw() {
  return {Avx512UbswTraits::kIsa, "vpmaddubsw + vpmaddwd + vpaddd zmm", &x86_dot_peak_loop<Avx512UbswTraits>};
}

std::span<const GemmUkernel> gemm_ukernels_avx512ubsw() {
  static const std::vector<GemmUkernel> tiles = [] {
    std::vector<GemmUkernel> all(std::begin(kNarrowAndMidTiles), std::end(kNarrowAndMidTiles));
    const auto wide = gemm_ukernels_avx512ubsw_wide();
    all.insert(all.end(), wide.begin(), wide.end());
    return all;
  }();
  return tiles;
}

}  // namespace qtune::detail
