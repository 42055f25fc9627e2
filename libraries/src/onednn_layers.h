// oneDNN's int8 matmul and convolution as library layers (see library_ops.h). Internal; compiled
// only when oneDNN is found.
//
// oneDNN is never asked to requantize itself (a direct u8/s8 output path): for the fp32 rounding
// it would have to match, RNE((float)acc * scale) + zp, oneDNN 2.6 computes
// RNE((float(acc) + float(bias)) * scale + zp) with the zero point added in float, which differs
// at ties that addition creates (tests/libraries/onednn_direct_output_test.cc), and its bias sum is
// exact only below 2^24. Exact would be only layers with output zero point 0 and
// K * 255 * 128 + |bias| <= 2^24, which none of the networks' u8 layers is.
#pragma once

#include <memory>
#include <string>

#include "qtune/libraries/library_ops.h"

namespace qtune::libraries::detail {

// "" when oneDNN computes the problem exactly here (the library itself being available).
std::string onednn_gemm_unsupported(const GemmProblem& problem);
std::string onednn_conv2d_unsupported(const Conv2dProblem& problem);

std::unique_ptr<const LibraryGemm> prepare_onednn_gemm(const GemmProblem& problem, const std::int8_t* b,
                                                       std::size_t ldb, const std::int32_t* bias, int threads);
std::unique_ptr<const LibraryConv2d> prepare_onednn_conv2d(const Conv2dProblem& problem, const std::int8_t* weights,
                                                           const std::int32_t* bias, int threads);

}  // namespace qtune::libraries::detail
