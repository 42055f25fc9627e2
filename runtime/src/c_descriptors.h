// Conversion of the C API's descriptors into the kernels' problems. Internal.
#pragma once

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/qtune.h"

namespace qtune::runtime::detail {

// std::invalid_argument naming the field for bad enum values, counts or quantization parameters
// (the problem's own validate() runs as well).
GemmProblem to_gemm_problem(const qtune_gemm_desc& desc, bool has_bias);
Conv2dProblem to_conv2d_problem(const qtune_conv2d_desc& desc, bool has_bias);

}  // namespace qtune::runtime::detail
