// The workload a concrete problem is: the runtime's lookup identity of a layer.
//
// A deployed layer arrives as a GemmProblem / Conv2dProblem with concrete zero points and scales;
// tuning results are keyed by the quantization *kind* (search_space's Workload). These functions
// derive that kind from the actual values, so that a layer finds the configuration tuned for it.
#pragma once

#include <string>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime {

// QuantKind of a problem: activation and output types, whether the activation zero point and any
// weight zero point are nonzero, whether anything is per output channel (weight zero points or
// requantization scales), and the rounding mode.
QuantKind quant_kind_of(const GemmProblem& problem);
QuantKind quant_kind_of(const Conv2dProblem& problem);

// The workload of a problem run with a budget of `threads` threads (>= 1).
// Throws std::invalid_argument when the problem is invalid (problem.validate()) or threads < 1.
Workload workload_of(const GemmProblem& problem, int threads);
Workload workload_of(const Conv2dProblem& problem, int threads);

// Fields of a QuantKind that cannot change what runs or what it computes get one spelling, so
// that equivalent workloads compare equal: with an int32 output there is no requantization, so
// the rounding mode is irrelevant (set to tflite), and so is per-channel-ness unless the weight
// zero points are nonzero (set to per-channel, the Workload default).
QuantKind normalized(QuantKind quant);

// The key a workload is looked up under: Workload::key() of the workload with normalized(quant).
std::string lookup_key(const Workload& workload);

// The group whose tuned configurations may stand in for each other: the operator, the normalized
// quantization kind and, for conv2d, the structure (dense, depthwise or grouped), because a
// depthwise configuration cannot run a dense convolution and vice versa. Thread budgets and
// shapes are not part of it.
std::string family_key(const Workload& workload);

}  // namespace qtune::runtime
