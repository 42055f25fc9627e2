// The registry of GEMM microkernels compiled into this build: the lists of every family whose
// QTUNE_HAVE_<ISA> is defined (kernels/CMakeLists.txt defines it when the folder is compiled).
// A family that adds microkernels (e.g. AMX, NEON) defines its gemm_ukernels_<isa>() and adds
// one line below.
#include <vector>

#include "gemm_ukernel.h"

namespace qtune::detail {
namespace {

std::vector<GemmUkernel> collect() {
  std::vector<GemmUkernel> all;
  auto add = [&](std::span<const GemmUkernel> family) { all.insert(all.end(), family.begin(), family.end()); };
  add(gemm_ukernels_scalar());
#if defined(QTUNE_HAVE_AVX2)
  add(gemm_ukernels_avx2());
#endif
#if defined(QTUNE_HAVE_AVXVNNI)
  add(gemm_ukernels_avxvnni());
#endif
#if defined(QTUNE_HAVE_AVX512VNNI)
  add(gemm_ukernels_avx512vnni());
#endif
#if defined(QTUNE_HAVE_NEON)
  add(gemm_ukernels_neon());
#endif
#if defined(QTUNE_HAVE_DOTPROD)
  add(gemm_ukernels_dotprod());
#endif
#if defined(QTUNE_HAVE_I8MM)
  add(gemm_ukernels_i8mm());
#endif
  return all;
}

}  // namespace

std::span<const GemmUkernel> gemm_ukernel_registry() {
  static const std::vector<GemmUkernel> all = collect();
  return all;
}

std::span<const GemmDotPeak> gemm_dot_peak_registry() {
  static const std::vector<GemmDotPeak> all = [] {
    std::vector<GemmDotPeak> out;
#if defined(QTUNE_HAVE_AVX2)
    out.push_back(gemm_dot_peak_avx2());
#endif
#if defined(QTUNE_HAVE_AVXVNNI)
    out.push_back(gemm_dot_peak_avxvnni());
#endif
#if defined(QTUNE_HAVE_AVX512VNNI)
    out.push_back(gemm_dot_peak_avx512vnni());
#endif
    return out;
  }();
  return all;
}

const GemmUkernel* find_gemm_ukernel(Isa isa, int mr, int nr) {
  for (const GemmUkernel& uk : gemm_ukernel_registry()) {
    if (uk.isa == isa && uk.mr == mr && uk.nr == nr) return &uk;
  }
  return nullptr;
}

}  // namespace qtune::detail
