// qtune's own shape and type inference over the operators the graph reader supports (ONNX's
// inference stops at com.microsoft operators such as QLinearAdd, and so would leave every tensor
// after a model's first residual add without a shape). Writes the result into the graph's
// value_info (and the outputs' types), so that GraphIndex answers from it.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

namespace qtune::onnx_import::detail {

// Every node's outputs get an element type and a static shape, in node order (producers first:
// ModelError naming the node when an input is produced later or never). `path` names the model in
// errors. Nodes of other op types: ModelError naming the node, unless `stop_at_unknown`, where
// the inference stops there (leaving later tensors unknown) and returns false.
bool infer_graph_shapes(onnx::GraphProto& graph, const std::string& path, std::int64_t opset, bool stop_at_unknown);

}  // namespace qtune::onnx_import::detail
