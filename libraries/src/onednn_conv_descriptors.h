// A qtune convolution described to oneDNN: NHWC activations, the caller's HWIO weights read in
// place, and the convolution's geometry. Shared by the exact library layer (onednn_conv2d.cc) and
// the same-run peer that requantizes in oneDNN (onednn_conv_peer.cc). Internal; compiled only
// when oneDNN is found.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "qtune/kernels/conv2d.h"

namespace qtune::libraries::detail {

// The weight dimensions oneDNN expects: {OC, IC, KH, KW}, or {G, OC/G, IC/G, KH, KW} when grouped.
dnnl::memory::dims conv_weight_dims(const Conv2dProblem& p);

// The caller's HWIO weights [KH][KW][Cg][OC] described with explicit strides: oneDNN's reorder
// reads them in place.
dnnl::memory::desc hwio_weights_desc(const Conv2dProblem& p);

// The input and the output (of `out_type`) in NHWC.
dnnl::memory::desc nhwc_input_desc(const Conv2dProblem& p);
dnnl::memory::desc nhwc_output_desc(const Conv2dProblem& p, DType out_type);

// The forward inference convolution over `p`'s geometry, its weights in the layout oneDNN picks
// (format "any"); `bias` may be an empty descriptor.
dnnl::convolution_forward::desc convolution_desc(const Conv2dProblem& p, const dnnl::memory::desc& output,
                                                 const dnnl::memory::desc& bias);

}  // namespace qtune::libraries::detail
