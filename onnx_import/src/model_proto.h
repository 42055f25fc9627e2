// Steps shared by the model readers (read_model: the layers; read_model_graph: the whole graph):
// parsing the file, the opset, binding given constant inputs and input shapes, naming nodes.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "qtune/onnx_import/model.h"
#include "tensor_values.h"

namespace qtune::onnx_import::detail {

// ModelError when the file is not an ONNX model with a graph of nodes.
onnx::ModelProto parse_model(const std::string& path);
// The default domain's opset, checked against first/last_supported_opset().
std::int64_t default_opset(const onnx::ModelProto& model, const std::string& path);
// ImportOptions::constant_input_files become initializers.
void bind_constant_inputs(onnx::GraphProto& graph, const ImportOptions& options, const std::string& path);
// ImportOptions::input_shapes replace the inputs' shapes; a remaining dynamic dimension is an error.
void set_input_shapes(onnx::GraphProto& graph, const ImportOptions& options, const std::string& path);
// The node's name, else "<op_type>_<index>".
std::string node_label(const onnx::NodeProto& node, std::size_t index);
// "<path>: node '<label>' (<op_type>)" for errors.
Where node_where(const std::string& path, const onnx::NodeProto& node, std::size_t index);

}  // namespace qtune::onnx_import::detail
