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

const DwKernel* find_dw_kernel(Isa isa, int channel_tile, int width_tile, DwForm form) {
  for (const DwKernel& k : dw_kernel_registry()) {
    if (k.isa == isa && k.channel_tile == channel_tile && k.width_tile == width_tile && k.form == form) return &k;
  }
  return nullptr;
}

const char* to_string(DwForm form) {
  switch (form) {
    case DwForm::general: return "general";
    case DwForm::dot4: return "dot4";
    case DwForm::rowdot: return "rowdot";
  }
  return "?";
}

bool dw_rowdot_applies(std::size_t channels, std::size_t kernel_w, std::size_t dilation_w, std::size_t stride_w,
                       std::size_t out_w) {
  if (kernel_w != 3 || dilation_w != 1 || (stride_w != 1 && stride_w != 2)) return false;
  if (dw_rowdot_pixel_pairs(channels)) return stride_w == 1 && out_w >= 2;
  return channels >= 64;
}

std::size_t dw_form_channel(DwForm form, std::size_t index, std::size_t channels) {
  switch (form) {
    case DwForm::general: return index;
    case DwForm::dot4: return dw_dot4_channel(index, channels);
    case DwForm::rowdot: return dw_rowdot_channel(index, channels);
  }
  return index;
}

std::size_t dw_form_lanes(DwForm form, std::size_t channels) {
  return form == DwForm::rowdot ? dw_rowdot_lanes(channels) : channels;
}

}  // namespace qtune::detail
