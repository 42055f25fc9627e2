// The rowdot form's row functions (dwconv_rowdot_avx512vnni.cc), listed in the AVX-512 VNNI
// family's registry beside its other depthwise kernels (dwconv_avx512vnni.cc).
#pragma once

#include "dwconv/dwconv.h"

namespace qtune::detail {

// Instantiated for WidthTile 1, 2 and 4: blocks of 64 channels (or 32-channel pixel pairs) per step.
template <int WidthTile>
void dw_rowdot_row(const DwRowArgs& args);

extern template void dw_rowdot_row<1>(const DwRowArgs&);
extern template void dw_rowdot_row<2>(const DwRowArgs&);
extern template void dw_rowdot_row<4>(const DwRowArgs&);

}  // namespace qtune::detail
