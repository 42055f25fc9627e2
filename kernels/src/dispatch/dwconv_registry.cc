// The depthwise kernels compiled into this build, runnable on this CPU or not: the lists of the
// instruction-set table's rows (dispatch/isa_table.cc), in its order.
#include <vector>

#include "dwconv/dwconv.h"
#include "dispatch/isa_table.h"

namespace qtune::detail {

std::span<const DwKernel> dw_kernel_registry() {
  static const std::vector<DwKernel> all = [] {
    std::vector<DwKernel> kernels;
    for (const IsaRow& row : isa_table()) {
      if (row.dwconv == nullptr) continue;
      const std::span<const DwKernel> family = row.dwconv();
      kernels.insert(kernels.end(), family.begin(), family.end());
    }
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
