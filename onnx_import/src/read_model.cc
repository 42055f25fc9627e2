// Reading a model: parse, check the opset, bind shapes and constant inputs, run ONNX's shape
// inference, then walk the nodes in order and keep every quantized layer.
#include <fstream>
#include <set>
#include <sstream>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "build_layer.h"
#include "graph_index.h"
#include "graph_shapes.h"
#include "layer_spec.h"
#include "qtune/onnx_import/model.h"
#include "model_proto.h"
#include "tensor_values.h"

namespace qtune::onnx_import {
namespace {

using detail::Where;
using detail::node_where;

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
  onnx::ModelProto proto = detail::parse_model(path);
  Model model;
  model.path = path;
  model.opset = detail::default_opset(proto, path);
  detail::bind_constant_inputs(*proto.mutable_graph(), options, path);
  detail::set_input_shapes(*proto.mutable_graph(), options, path);
  // qtune's own inference where it knows every op of the model (it reads com.microsoft operators,
  // after which ONNX's leaves every shape unknown), else ONNX's.
  bool inferred = false;
  try {
    inferred = detail::infer_graph_shapes(*proto.mutable_graph(), path, model.opset, /*stop_at_unknown=*/true);
  } catch (const ModelError&) {
    inferred = false;
  }
  if (!inferred) infer_shapes(proto, path, model.opset);
  const onnx::GraphProto& graph = proto.graph();
  model.graph_name = graph.name();
  const detail::GraphIndex index(graph);

  std::map<const onnx::NodeProto*, std::size_t> position;  // a node's index, for its label
  for (int i = 0; i < graph.node_size(); ++i) position[&graph.node(i)] = static_cast<std::size_t>(i);
  std::set<const onnx::NodeProto*> absorbed;
  std::vector<std::pair<const onnx::NodeProto*, std::string>> unsupported;  // node, why
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const std::string label = detail::node_label(node, static_cast<std::size_t>(i));
    const Where where = node_where(path, node, static_cast<std::size_t>(i));
    try {
      if (auto spec = detail::match_layer(node, where, index, model.opset)) {
        ModelLayer layer = detail::build_layer(*spec, index);
        layer.name = label;
        for (const onnx::NodeProto* part : spec->absorbed)
          layer.nodes.push_back(detail::node_label(*part, position.at(part)));
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
    model.skipped.push_back({detail::node_label(node, static_cast<std::size_t>(i)), node.op_type(),
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
