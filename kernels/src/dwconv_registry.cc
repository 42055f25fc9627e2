// The depthwise kernels compiled into this build, runnable on this CPU or not.
#include <vector>

#include "dwconv.h"

namespace qtune::detail {

std::span<const DwKernel> dw_kernel_registry() {
  static const std::vector<DwKernel> all = [] {
    std::vector<DwKernel> kernels;
    auto append = [&](std::span<const DwKernel> family) { kernels.insert(kernels.end(), family.begin(), family.end()); };
    append(dw_kernels_scalar());
#if defined(QTUNE_HAVE_AVX2)
    append(dw_kernels_avx2());
#endif
#if defined(QTUNE_HAVE_AVX512VNNI)
    append(dw_kernels_avx512vnni());
#endif
    return kernels;
  }();
  return all;
}

const DwKernel* find_dw_kernel(Isa isa, int channel_tile, int width_tile, bool dot4) {
  for (const DwKernel& k : dw_kernel_registry()) {
    if (k.isa == isa && k.channel_tile == channel_tile && k.width_tile == width_tile && k.dot4 == dot4) return &k;
  }
  return nullptr;
}

}  // namespace qtune::detail
