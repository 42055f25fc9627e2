// The AVX-512 VNNI GEMM family's entry points (the family and why its tiles live in three
// translation units: gemm_avx512vnni_traits.h).
#include <vector>

#include "x86/avx512vnni/gemm_avx512vnni_traits.h"

namespace qtune::detail {

GemmDotPeak gemm_dot_peak_avx512vnni() { return {Avx512VnniTraits::kIsa, "vpdpbusd zmm", &x86_dot_peak_loop<Avx512VnniTraits>}; }

std::span<const GemmUkernel> gemm_ukernels_avx512vnni() {
  static const std::vector<GemmUkernel> tiles = [] {
    std::vector<GemmUkernel> all;
    for (const auto part : {gemm_ukernels_avx512vnni_narrow(), gemm_ukernels_avx512vnni_mid(),
                            gemm_ukernels_avx512vnni_wide()}) {
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
  return tiles;
}

}  // namespace qtune::detail
