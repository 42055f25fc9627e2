// How far apart two shapes of one operator are, for the runtime's fallback: a layer that was
// never tuned gets the configuration of the nearest tuned layer of its family (workload_of.h's
// family_key: same operator, quantization kind and convolution structure).
//
// The distance is the sum, over the dimensions that decide blocking and tiling, of
// |log2(a / b)|: a factor of 2 in one dimension costs 1, whichever way, and the dimensions count
// equally.
//   GEMM:   M, N, K.
//   conv2d: M = batch*OH*OW (output pixels), C_out, K = KH*KW*C_in/groups (the GEMM's depth),
//           KH*KW (the kernel window) and stride_h*stride_w.
// Ties are broken deterministically: smaller |log2(threads ratio)| first, then the smaller
// workload key (byte order).
#pragma once

#include "qtune/search_space/workload.h"

namespace qtune::runtime {

// Both workloads must have the same operator (std::invalid_argument otherwise).
double shape_distance(const Workload& a, const Workload& b);

// The deterministic order of candidates for `query`: true when `a` is nearer than `b`.
bool nearer(const Workload& query, const Workload& a, const Workload& b);

}  // namespace qtune::runtime
