// Fitting a configuration tuned for one shape to another shape of the same family (the runtime's
// nearest-shape fallback). Internal to the runtime.
#pragma once

#include <string>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune::runtime::detail {

template <typename KernelConfig>
struct Adapted {
  KernelConfig config;
  std::string problem;  // "" when `config` passed the kernels' check, else the last check message
};

// Steps, each followed by gemm_check_config, the first that passes wins:
//   1. cache blocks at least as large as the new dimension become 0 ("whole dimension", what the
//      search space spells them as) and the thread count is capped by the budget;
//   2. all cache blocking is reset to 0 (a block size may not suit the new shape's tile fit).
// The instruction set, register tile, pack_a and fuse choices are what was tuned and are kept.
Adapted<GemmConfig> adapt_gemm_config(GemmConfig tuned, const GemmProblem& problem, int threads);

// The same for the GEMM inside a GEMM-based convolution (against the convolution's GEMM shape),
// plus: gemm_1x1 on a shape that is not a plain 1x1 becomes indirect (with pack_a), then im2col;
// depthwise channel/width tiles the check rejects are replaced by the heuristic default's.
Adapted<Conv2dConfig> adapt_conv2d_config(Conv2dConfig tuned, const Conv2dProblem& problem, int threads);

}  // namespace qtune::runtime::detail
