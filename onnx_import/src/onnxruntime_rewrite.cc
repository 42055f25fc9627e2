#include "qtune/onnx_import/onnxruntime_rewrite.h"

#include <map>
#include <set>

#include <onnx/checker.h>

#include "model_proto.h"
#include "nhwc_operations.h"
#include "node_builder.h"
#include "qtune/onnxruntime_ops/node_format.h"

namespace qtune::onnx_import {
namespace {

namespace ops = onnxruntime_ops;
using onnx::NodeProto;

void set_node_attributes(NodeProto& node, const ops::NodeAttributes& a) {
  detail::set_string(node, "workload", a.workload);
  detail::set_string(node, "config", a.config);
  detail::set_int(node, "x_zero_point", a.x_zero_point);
  detail::set_ints(node, "w_zero_points", a.w_zero_points);
  detail::set_floats(node, "scales", a.scales);
  detail::set_int(node, "y_zero_point", a.y_zero_point);
  detail::set_int(node, "qmin", a.qmin);
  detail::set_int(node, "qmax", a.qmax);
}

template <typename T>
void add_initializer(onnx::GraphProto& graph, const std::string& name, int type, const std::vector<std::int64_t>& dims,
                     const std::vector<T>& values) {
  onnx::TensorProto& t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (const std::int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

void import_domain(onnx::ModelProto& proto, const std::string& domain, std::int64_t version) {
  for (const auto& opset : proto.opset_import())
    if (opset.domain() == domain) return;
  auto& opset = *proto.add_opset_import();
  opset.set_domain(domain);
  opset.set_version(version);
}

// Why the layer stays as it is, "" when it can be written as a qtune node.
std::string not_writable(const ModelLayer& layer) {
  const DType out = layer.op == OpKind::conv2d ? layer.conv.out_type : layer.gemm.out_type;
  if (out == DType::s32) return "its output is int32 or float (ConvInteger, MatMulInteger, a float QDQ output)";
  if (layer.op == OpKind::gemm && layer.gemm_batches != 1) return "a batched matrix product (B has leading dimensions)";
  if (layer.op == OpKind::conv2d && layer.input_shape.size() != 4) return "not a 2-D convolution";
  return "";
}

// The nodes of `layer` that can go: each of its nodes whose outputs are read by no node outside
// the group and are no graph output, except `layer.output`, which the qtune node then writes.
// Empty when the node writing the layer's output cannot go.
std::set<int> removable_nodes(const ModelLayer& layer, const std::map<std::string, int>& by_label,
                              const onnx::GraphProto& graph, const std::map<std::string, std::vector<int>>& consumers,
                              const std::set<std::string>& graph_outputs) {
  std::set<int> group;
  for (const std::string& label : layer.nodes) {
    const auto it = by_label.find(label);
    if (it == by_label.end()) return {};
    group.insert(it->second);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = group.begin(); it != group.end();) {
      bool keep = false;
      for (const std::string& out : graph.node(*it).output()) {
        if (out.empty() || out == layer.output) continue;
        if (graph_outputs.count(out)) keep = true;
        const auto c = consumers.find(out);
        if (c != consumers.end())
          for (const int reader : c->second) keep = keep || !group.count(reader);
      }
      if (keep) {
        it = group.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  for (const int i : group)
    for (const std::string& out : graph.node(i).output())
      if (out == layer.output) return group;
  return {};
}

}  // namespace

RewrittenModel rewrite_for_onnxruntime(const std::string& path, const runtime::Runtime& runtime,
                                       const RewriteOptions& options) {
  const Model model = read_model(path, options.import);
  onnx::ModelProto proto = detail::parse_model(path);
  onnx::GraphProto& graph = *proto.mutable_graph();
  RewrittenModel result;
  result.nodes_before = static_cast<std::size_t>(graph.node_size());

  std::map<std::string, int> by_label;
  std::map<std::string, std::vector<int>> consumers;
  for (int i = 0; i < graph.node_size(); ++i) {
    by_label[detail::node_label(graph.node(i), static_cast<std::size_t>(i))] = i;
    for (const std::string& in : graph.node(i).input()) consumers[in].push_back(i);
  }
  std::set<std::string> graph_outputs;
  for (const auto& out : graph.output()) graph_outputs.insert(out.name());

  std::set<int> removed;
  std::map<int, std::vector<NodeProto>> inserted;  // before the node of this index
  std::map<std::string, std::vector<std::int64_t>> moved_outputs;  // what the qtune nodes write (8-bit), shapes
  std::set<std::string> names_in_use;
  for (const auto& t : graph.initializer()) names_in_use.insert(t.name());
  for (const auto& n : graph.node())
    for (const std::string& out : n.output()) names_in_use.insert(out);
  const auto fresh = [&](const std::string& base) {
    std::string name = base;
    for (int i = 1; names_in_use.count(name); ++i) name = base + "_" + std::to_string(i);
    names_in_use.insert(name);
    return name;
  };

  for (const ModelLayer& layer : model.layers) {
    std::string reason = not_writable(layer);
    std::set<int> group;
    if (reason.empty()) {
      group = removable_nodes(layer, by_label, graph, consumers, graph_outputs);
      if (group.empty()) reason = "a tensor inside it (between its nodes) is read elsewhere";
    }
    if (!reason.empty()) {
      result.kept.push_back({layer.name, layer.op_type, reason});
      continue;
    }
    const bool conv = layer.op == OpKind::conv2d;
    runtime::Selection selection = conv ? runtime.select_conv2d(layer.conv, options.threads, runtime::LibraryUse::kernels_only)
                                        : runtime.select_gemm(layer.gemm, options.threads, runtime::LibraryUse::kernels_only);
    // A layer without tuning data names no configuration: the kernel takes the default of the
    // machine it runs on, not this one's.
    const std::string config = selection.source == runtime::ConfigSource::heuristic ? "" : selection.config_key;
    const ops::NodeAttributes attributes = conv ? ops::node_attributes(layer.conv, options.threads, config)
                                                : ops::node_attributes(layer.gemm, options.threads, config);
    const std::string base = "qtune/" + layer.name;
    const std::string w = fresh(base + "/W");
    std::vector<NodeProto> nodes;
    NodeProto node;
    node.set_domain(ops::kDomain);
    node.set_op_type(conv ? ops::kConvOp : ops::kMatMulOp);
    node.set_name(fresh(base));
    set_node_attributes(node, attributes);
    if (conv) {
      add_initializer(graph, w, onnx::TensorProto::INT8, ops::conv2d_weight_shape(layer.conv), layer.weights);
      const std::string x_nhwc = fresh(base + "/x_nhwc"), y_nhwc = fresh(base + "/y_nhwc");
      nodes.push_back(detail::transpose(layer.input, x_nhwc, fresh(base + "/to_nhwc"), detail::kToNhwc));
      node.add_input(x_nhwc);
      node.add_input(w);
      node.add_output(y_nhwc);
    } else {
      add_initializer(graph, w, onnx::TensorProto::INT8, {layer.gemm.k, layer.gemm.n}, layer.weights);
      node.add_input(layer.input);
      node.add_input(w);
      node.add_output(layer.output);
    }
    if (!layer.bias.empty()) {
      const std::string b = fresh(base + "/B");
      add_initializer(graph, b, onnx::TensorProto::INT32, {static_cast<std::int64_t>(layer.bias.size())}, layer.bias);
      node.add_input(b);
    }
    const std::string y_nhwc = conv ? node.output(0) : "";
    nodes.push_back(std::move(node));
    if (conv) nodes.push_back(detail::transpose(y_nhwc, layer.output, fresh(base + "/to_nchw"), detail::kToNchw));
    // Where the group wrote its output: every input of the new nodes exists by then.
    int at = -1;
    for (const int i : group)
      for (const std::string& out : graph.node(i).output())
        if (out == layer.output) at = i;
    inserted[at] = std::move(nodes);
    removed.insert(group.begin(), group.end());
    moved_outputs[layer.output] = layer.output_shape;
    result.moved.push_back({layer.name, layer.op_type, conv ? ops::kConvOp : ops::kMatMulOp, std::move(selection)});
  }

  // The graph again, in order, with the groups replaced; then the initializers nothing reads.
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (const auto it = inserted.find(i); it != inserted.end())
      for (NodeProto& n : it->second) *nodes.Add() = std::move(n);
    if (!removed.count(i)) *nodes.Add() = graph.node(i);
  }
  graph.mutable_node()->Swap(&nodes);
  result.nhwc_operations = detail::operations_to_nhwc(graph, std::move(moved_outputs), options.threads, fresh);
  std::set<std::string> read;
  for (const auto& n : graph.node())
    for (const std::string& in : n.input()) read.insert(in);
  for (const auto& out : graph.output()) read.insert(out.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> initializers;
  for (auto& t : *graph.mutable_initializer())
    if (read.count(t.name())) *initializers.Add() = std::move(t);
  graph.mutable_initializer()->Swap(&initializers);
  result.nodes_after = static_cast<std::size_t>(graph.node_size());

  for (const NodeProto& node : graph.node()) {
    if (node.domain() == ops::kDomain) import_domain(proto, ops::kDomain, ops::kDomainVersion);
    if (node.domain() == "com.microsoft") import_domain(proto, "com.microsoft", 1);
  }
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& e) {
    throw ModelError(path + ": the rewritten model fails ONNX's checker: " + e.what());
  }
  result.bytes = proto.SerializeAsString();
  return result;
}

}  // namespace qtune::onnx_import
