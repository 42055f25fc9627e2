// oneDNN's int8 matmul and convolution as library layers (see library_ops.h). Internal; compiled
// only when oneDNN is found.
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
