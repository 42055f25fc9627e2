#include "vector_paths.h"

#include <algorithm>

#include "qtune/kernels/cpu_features.h"

namespace qtune::executor {
namespace {

bool restriction_allows(std::initializer_list<Isa> families) {
  const CpuFeatures& f = cpu_features();
  if (!f.isa_restricted) return true;
  return std::any_of(families.begin(), families.end(), [&](Isa isa) {
    return std::find(f.isa_allowlist.begin(), f.isa_allowlist.end(), isa) != f.isa_allowlist.end();
  });
}

}  // namespace

bool avx512_paths() {
  static const bool yes = [] {
    const CpuFeatures& f = cpu_features();
    return f.avx512f && f.avx512bw && f.avx512vl && restriction_allows({Isa::avx512vnni, Isa::amx});
  }();
  return yes;
}

bool avx512_vbmi_paths() {
#if defined(__x86_64__)
  static const bool yes = avx512_paths() && __builtin_cpu_supports("avx512vbmi");
  return yes;
#else
  return false;
#endif
}

bool avx2_paths() {
  static const bool yes = [] {
#if defined(__x86_64__)
    const bool fma = __builtin_cpu_supports("fma");
#else
    const bool fma = false;
#endif
    return cpu_features().avx2 && fma && restriction_allows({Isa::avx2, Isa::avxvnni, Isa::avx512vnni, Isa::amx});
  }();
  return yes;
}

}  // namespace qtune::executor
