// The portable depthwise kernels: the template with one-lane "vectors" (the compiler may still
// vectorize the channel tile), requantized through the scalar plan evaluation.
#include <array>

#include "dwconv/dwconv_template.h"
#include "vector/scalar_vector.h"

namespace qtune::detail {
namespace {

constexpr std::array kScalarKernels = {
    QTUNE_DW_KERNEL(ScalarVector, 8, 1),  QTUNE_DW_KERNEL(ScalarVector, 16, 1),
    QTUNE_DW_KERNEL(ScalarVector, 8, 2),  QTUNE_DW_KERNEL(ScalarVector, 16, 2),
    QTUNE_DW_KERNEL(ScalarVector, 8, 4),  QTUNE_DW_KERNEL(ScalarVector, 16, 4),
};

}  // namespace

std::span<const DwKernel> dw_kernels_scalar() { return kScalarKernels; }

}  // namespace qtune::detail
