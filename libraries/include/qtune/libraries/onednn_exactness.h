// Whether oneDNN's int8 products are exact on this CPU, layer by layer: the peer's implementation
// run to s32 (no zero points, no bias: only the dot products) on the layer's own input and weights,
// against qtune's exact int32 sums. Without an int8 dot-product instruction (AVX2, AVX-512 without
// VNNI) oneDNN multiplies with vpmaddubsw, whose int16 sum of two u8 x s8 products saturates,
// and some of its implementations pass the sums through float; `qtune run` counts what differs.
// Built only with oneDNN (QTUNE_HAVE_ONEDNN).
#pragma once

#include <cstdint>
#include <string>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune::libraries {

struct PeerExactness {
  std::int64_t elements = 0;    // int32 outputs compared
  std::int64_t mismatched = 0;  // of them, those oneDNN got wrong
  std::string implementation;   // oneDNN's implementation that computed them
};

// The convolution `problem` (its shape, activation type and groups; the rest is ignored) over
// NHWC `input` and HWIO `weights`, on `threads` OpenMP threads.
PeerExactness onednn_conv_exactness(const Conv2dProblem& problem, const std::int8_t* weights_hwio, const void* input,
                                    int threads);

// The matrix product `problem` (m, n, k, a_type) of row-major A (M x K) and B (K x N).
PeerExactness onednn_matmul_exactness(const GemmProblem& problem, const std::int8_t* b, const void* a, int threads);

}  // namespace qtune::libraries
