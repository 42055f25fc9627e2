// The window and output size of an ONNX 2-D pooling node (MaxPool, AveragePool and the
// com.microsoft QLinearAveragePool), computed as onnxruntime's PoolAttributes does: explicit
// pads or auto_pad, dilations, ceil_mode with the rule that the last window must start inside the
// input or its leading padding.
#pragma once

#include <cstdint>
#include <vector>

#include <onnx/onnx_pb.h>

#include "qtune/onnx_import/model_graph.h"
#include "tensor_values.h"

namespace qtune::onnx_import::detail {

struct PoolGeometry {
  PoolWindow window;
  std::int64_t out_h = 0, out_w = 0;
};

// `input` is the NCHW shape; ModelError naming the node and the attribute when it is not a 2-D
// pooling the attributes describe consistently.
PoolGeometry pool_geometry(const onnx::NodeProto& node, const std::vector<std::int64_t>& input, const Where& where);

}  // namespace qtune::onnx_import::detail
