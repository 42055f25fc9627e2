// The largest problems qtune accepts. GemmProblem::validate() and Conv2dProblem::validate() check
// them, so every entry point (the kernels, the search space and workload files, the tuner, the
// runtime and the C API) refuses an oversized layer with a message naming the field or the memory,
// before anything is allocated and before any size product can overflow.
#pragma once

#include <cstdint>
#include <string>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune {

// Every dimension, kernel extent, stride, dilation, padding and group count: at most 2^31 - 1 (the
// int32 indices of the microkernels), so any product of two of them fits in 64 bits.
inline constexpr std::int64_t kMaxDimension = (std::int64_t{1} << 31) - 1;

// The most threads one kernel runs with (gemm_check_config, `qtune bench --threads`, `qtune tune
// --threads`). Workload keys may name larger thread budgets (see kMaxWorkloadThreads).
inline constexpr int kMaxKernelThreads = 256;

// The memory one layer may ask for: 4 GiB, counted as layer_bytes() counts it.
inline constexpr std::uint64_t kMaxLayerBytes = std::uint64_t{4} << 30;

// The bytes of a layer's tensors, an upper estimate of what preparing and measuring it allocates:
//   gemm:   A (m*k) + B and its packed copy (2*k*n) + the int32 result (4*m*n) + 28 bytes of bias,
//           zero point and requantization parameters per output channel (n);
//   conv2d: input (N*H*W*C) + weights and their packed copy (2*KH*KW*C/groups*OC) + the int32
//           result (4*N*OH*OW*OC) + the im2col matrix of one group (N*OH*OW * KH*KW*C/groups)
//           + 28 bytes per output channel.
// Saturates at UINT64_MAX instead of overflowing. Dimensions must be >= 1 and <= kMaxDimension.
std::uint64_t layer_bytes(const GemmProblem& problem);
std::uint64_t layer_bytes(const Conv2dProblem& problem);

// Empty when every dimension is within kMaxDimension and layer_bytes() within kMaxLayerBytes,
// else a message naming the field or the memory the layer needs. The lower bounds (>= 1) are
// validate()'s, checked before these.
std::string size_problem(const GemmProblem& problem);
std::string size_problem(const Conv2dProblem& problem);

// "4.0 GiB", "17.2 GiB", "512 bytes": sizes in messages.
std::string describe_bytes(std::uint64_t bytes);

}  // namespace qtune
