#include "model_proto.h"

#include <fstream>
#include <set>

#include <onnx/defs/schema.h>

namespace qtune::onnx_import::detail {

onnx::ModelProto parse_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the model");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in))
    throw ModelError(path + ": not an ONNX model (not a protobuf ModelProto, or truncated)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw ModelError(path + ": not an ONNX model (no graph with nodes; truncated?)");
  return model;
}

std::int64_t default_opset(const onnx::ModelProto& model, const std::string& path) {
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      if (opset.version() < first_supported_opset() || opset.version() > last_supported_opset()) {
        throw ModelError(path + ": field 'opset_import': opset " + std::to_string(opset.version()) +
                         " of the default domain is not supported (supported: " +
                         std::to_string(first_supported_opset()) + " to " + std::to_string(last_supported_opset()) + ")");
      }
      return opset.version();
    }
  }
  throw ModelError(path + ": field 'opset_import': no opset of the default ONNX domain");
}

void bind_constant_inputs(onnx::GraphProto& graph, const ImportOptions& options, const std::string& path) {
  for (const auto& [name, file] : options.constant_input_files) {
    bool found = false;
    for (const auto& input : graph.input()) found = found || input.name() == name;
    if (!found) throw ModelError(path + ": constant input '" + name + "' is not an input of the graph");
    onnx::TensorProto tensor = detail::read_tensor_file(file);
    tensor.set_name(name);
    *graph.add_initializer() = std::move(tensor);
  }
}

// Replaces given input shapes; every remaining dynamic dimension of an activation input is an error.
void set_input_shapes(onnx::GraphProto& graph, const ImportOptions& options, const std::string& path) {
  std::set<std::string> initializers;
  for (const auto& tensor : graph.initializer()) initializers.insert(tensor.name());
  std::set<std::string> used;
  for (auto& input : *graph.mutable_input()) {
    if (initializers.count(input.name())) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (const auto it = options.input_shapes.find(input.name()); it != options.input_shapes.end()) {
      if (input.type().tensor_type().has_shape() && shape->dim_size() != static_cast<int>(it->second.size()) &&
          shape->dim_size() != 0) {
        throw ModelError(path + ": --input-shape " + input.name() + " gives " + std::to_string(it->second.size()) +
                         " dimensions, the model's input has " + std::to_string(shape->dim_size()));
      }
      shape->clear_dim();
      for (const std::int64_t d : it->second) shape->add_dim()->set_dim_value(d);
      used.insert(input.name());
      continue;
    }
    std::string dims;
    bool dynamic = !input.type().tensor_type().has_shape();
    for (const auto& d : shape->dim()) {
      dynamic = dynamic || !d.has_dim_value() || d.dim_value() < 1;
      dims += (dims.empty() ? "" : ",") + (d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param().empty() ? "?" : d.dim_param());
    }
    if (dynamic) {
      throw ModelError(path + ": input '" + input.name() + "' has a dynamic shape [" + dims +
                       "]: give it with --input-shape " + input.name() + "=N,C,H,W");
    }
  }
  for (const auto& [name, dims] : options.input_shapes) {
    if (!used.count(name)) throw ModelError(path + ": --input-shape names '" + name + "', which is not an input of the graph");
  }
}

std::string node_label(const onnx::NodeProto& node, std::size_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

Where node_where(const std::string& path, const onnx::NodeProto& node, std::size_t index) {
  return Where{path + ": node '" + node_label(node, index) + "' (" + node.op_type() + ")"};
}

}  // namespace qtune::onnx_import::detail
