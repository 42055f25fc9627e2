// A recognized layer turned into the problem qtune runs: shapes from shape inference, ONNX's
// convolution attributes (pads, auto_pad, strides, dilations, group), weights in qtune's layout.
#pragma once

#include "layer_spec.h"
#include "qtune/onnx_import/model.h"

namespace qtune::onnx_import::detail {

ModelLayer build_layer(const LayerSpec& spec, const GraphIndex& graph);

}  // namespace qtune::onnx_import::detail
