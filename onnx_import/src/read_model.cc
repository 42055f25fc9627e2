// Reading a model: parse, check the opset, bind shapes and constant inputs, run ONNX's shape
// inference, then walk the nodes in order and keep every quantized layer.
#include <fstream>
#include <set>
#include <sstream>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "build_layer.h"
#include "graph_index.h"
#include "layer_spec.h"
#include "qtune/onnx_import/model.h"
#include "tensor_values.h"

namespace qtune::onnx_import {
namespace {

using detail::Where;

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

void infer_shapes(onnx::ModelProto& model, const std::string& path, std::int64_t opset) {
  // Stale intermediate shapes would override what the given input shapes imply.
  model.mutable_graph()->clear_value_info();
  onnx::ShapeInferenceOptions options;
  options.check_type = true;
  options.error_mode = 1;  // throw on the first inconsistency
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    // Most inconsistencies are in the quantization parameters: reading the layers names the
    // node and the field more precisely than the inference's message; else that message.
    const detail::GraphIndex index(model.graph());
    for (int i = 0; i < model.graph().node_size(); ++i) {
      try {
        detail::match_layer(model.graph().node(i), node_where(path, model.graph().node(i), static_cast<std::size_t>(i)), index, opset);
      } catch (const detail::Unsupported&) {
      }
    }
    throw ModelError(path + ": ONNX shape inference failed: " + e.what());
  }
}

}  // namespace

std::int64_t first_supported_opset() { return 10; }

std::int64_t last_supported_opset() {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  return ranges.at(onnx::ONNX_DOMAIN).second;
}

Model read_model(const std::string& path, const ImportOptions& options) {
  onnx::ModelProto proto = parse_model(path);
  Model model;
  model.path = path;
  model.opset = default_opset(proto, path);
  bind_constant_inputs(*proto.mutable_graph(), options, path);
  set_input_shapes(*proto.mutable_graph(), options, path);
  infer_shapes(proto, path, model.opset);
  const onnx::GraphProto& graph = proto.graph();
  model.graph_name = graph.name();
  const detail::GraphIndex index(graph);

  std::map<const onnx::NodeProto*, std::size_t> position;  // a node's index, for its label
  for (int i = 0; i < graph.node_size(); ++i) position[&graph.node(i)] = static_cast<std::size_t>(i);
  std::set<const onnx::NodeProto*> absorbed;
  std::vector<std::pair<const onnx::NodeProto*, std::string>> unsupported;  // node, why
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const std::string label = node_label(node, static_cast<std::size_t>(i));
    const Where where = node_where(path, node, static_cast<std::size_t>(i));
    try {
      if (auto spec = detail::match_layer(node, where, index, model.opset)) {
        ModelLayer layer = detail::build_layer(*spec, index);
        layer.name = label;
        for (const onnx::NodeProto* part : spec->absorbed)
          layer.nodes.push_back(node_label(*part, position.at(part)));
        model.layers.push_back(std::move(layer));
        absorbed.insert(spec->absorbed.begin(), spec->absorbed.end());
      }
    } catch (const detail::Unsupported& e) {
      unsupported.emplace_back(&node, e.what());
    }
  }
  std::map<const onnx::NodeProto*, std::string> reasons(unsupported.begin(), unsupported.end());
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (absorbed.count(&node)) continue;
    const auto reason = reasons.find(&node);
    model.skipped.push_back({node_label(node, static_cast<std::size_t>(i)), node.op_type(),
                             reason != reasons.end() ? reason->second : "not a convolution or matrix product"});
  }
  return model;
}

std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument("input shape '" + text + "' is not NAME=D1,D2,...");
  std::vector<std::int64_t> dims;
  std::stringstream rest(text.substr(eq + 1));
  std::string item;
  while (std::getline(rest, item, ',')) {
    std::size_t used = 0;
    long long d = 0;
    try {
      d = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || d < 1 || d > (1LL << 31))
      throw std::invalid_argument("input shape '" + text + "': dimension '" + item + "' is not a positive integer");
    dims.push_back(d);
  }
  return {text.substr(0, eq), dims};
}

}  // namespace qtune::onnx_import
