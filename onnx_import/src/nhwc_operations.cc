#include "nhwc_operations.h"

#include <map>
#include <optional>
#include <vector>

#include "graph_index.h"
#include "layer_spec.h"
#include "node_builder.h"
#include "tensor_values.h"

namespace qtune::onnx_import::detail {
namespace {

using onnx::NodeProto;

// The pool's window attributes, without any channels_last it had.
void copy_pool_attributes(const NodeProto& from, NodeProto& to) {
  for (const auto& a : from.attribute())
    if (a.name() != "channels_last" && a.name() != "storage_order") *to.add_attribute() = a;
}

void set_channels_last(NodeProto& node) { set_int(node, "channels_last", 1); }

bool only_reader(const GraphIndex& index, const std::string& tensor, const NodeProto& reader) {
  const auto readers = index.consumers(tensor);
  return readers.size() == 1 && readers[0] == &reader;
}

// Two constants of equal values (the same quantization parameter written twice).
bool same_constant(const GraphIndex& index, const std::string& a, const std::string& b) {
  if (a == b) return true;
  const onnx::TensorProto* x = index.constant(a);
  const onnx::TensorProto* y = index.constant(b);
  if (!x || !y || x->data_type() != y->data_type()) return false;
  const Where where{"a pool's quantization parameter"};
  if (x->data_type() == onnx::TensorProto::FLOAT) return float_values(*x, where, a) == float_values(*y, where, b);
  return integer_values(*x, where, a) == integer_values(*y, where, b);
}

std::vector<std::int64_t> ints_or(const NodeProto& node, const std::string& name, std::vector<std::int64_t> otherwise) {
  const auto* a = find_attribute(node, name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : otherwise;
}

std::int64_t int_or(const NodeProto& node, const std::string& name, std::int64_t otherwise) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : otherwise;
}

// ai.qtune.QAveragePool for an average pool of 2-D windows whose quantization parameters are
// scalar constants (x_scale, x_zero_point, y_scale, y_zero_point: tensor names); nullopt where
// it cannot say it (auto_pad, dilations, computed parameters), and the pool stays onnxruntime's.
std::optional<NodeProto> qtune_average_pool(const NodeProto& pool, const std::vector<std::string>& parameters,
                                            const GraphIndex& index, int threads) {
  const auto kernel = ints_or(pool, "kernel_shape", {});
  const auto strides = ints_or(pool, "strides", {1, 1});
  const auto pads = ints_or(pool, "pads", {0, 0, 0, 0});
  const auto dilations = ints_or(pool, "dilations", {1, 1});
  const auto* auto_pad = find_attribute(pool, "auto_pad");
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4 || dilations != std::vector<std::int64_t>{1, 1} ||
      (auto_pad && auto_pad->s() != "NOTSET" && !auto_pad->s().empty()))
    return std::nullopt;
  const onnx::TensorProto* c[4];
  for (int i = 0; i < 4; ++i) {
    c[i] = parameters[static_cast<std::size_t>(i)].empty() ? nullptr : index.constant(parameters[static_cast<std::size_t>(i)]);
    if (!c[i] || c[i]->dims_size() > 1 || (c[i]->dims_size() == 1 && c[i]->dims(0) != 1)) return std::nullopt;
  }
  const int type = c[1]->data_type();
  if ((type != onnx::TensorProto::UINT8 && type != onnx::TensorProto::INT8) || c[3]->data_type() != type) return std::nullopt;
  const Where where{"node '" + pool.name() + "' (" + pool.op_type() + ")"};
  NodeProto node;
  node.set_domain("ai.qtune");
  node.set_op_type("QAveragePool");
  node.add_input("");
  set_ints(node, "kernel_shape", kernel);
  set_ints(node, "strides", strides);
  set_ints(node, "pads", pads);
  set_int(node, "ceil_mode", int_or(pool, "ceil_mode", 0));
  set_int(node, "count_include_pad", int_or(pool, "count_include_pad", 0));
  set_float(node, "x_scale", float_values(*c[0], where, "x_scale").at(0));
  set_int(node, "x_zero_point", integer_values(*c[1], where, "x_zero_point").at(0));
  set_float(node, "y_scale", float_values(*c[2], where, "y_scale").at(0));
  set_int(node, "y_zero_point", integer_values(*c[3], where, "y_zero_point").at(0));
  set_int(node, "x_type", type);
  set_int(node, "threads", threads);
  return node;
}

// One operation to write in NHWC: the nodes it replaces and the NHWC node computing it.
struct Rewrite {
  std::vector<const NodeProto*> replaced;  // in graph order; the last writes `output`
  NodeProto op;                            // reads `input` in NHWC, writes NHWC
  std::string input, output;
  std::vector<int> more_nhwc_inputs;       // the positions of the node's other NHWC inputs (an Add's B)
};

// com.microsoft.QLinearAdd of two tensors of one 4-D shape, elementwise in any layout: NHWC between
// qtune nodes, where onnxruntime's transpose optimizer left it NCHW with four Transposes.
std::optional<Rewrite> match_add(const NodeProto& node, std::map<std::string, std::vector<std::int64_t>>& shapes) {
  if (node.op_type() != "QLinearAdd" || node.domain() != "com.microsoft" || node.input_size() != 8 ||
      node.output_size() != 1)
    return std::nullopt;
  const auto a = shapes.find(node.input(0)), b = shapes.find(node.input(3));
  if (a == shapes.end() || b == shapes.end() || a->second != b->second || a->second.size() != 4) return std::nullopt;
  shapes[node.output(0)] = a->second;
  Rewrite r;
  r.op = node;
  r.op.clear_output();
  r.replaced = {&node};
  r.input = node.input(0);
  r.output = node.output(0);
  r.more_nhwc_inputs = {3};
  return r;
}

// The QOperator pools on an 8-bit tensor, and the QDQ form's DequantizeLinear -> pool -> QuantizeLinear.
std::optional<Rewrite> match(const NodeProto& node, const GraphIndex& index, const std::set<std::string>& eight_bit,
                             int threads) {
  const std::string& op = node.op_type();
  Rewrite r;
  if (op == "MaxPool" && node.domain().empty() && node.output_size() == 1 && eight_bit.count(node.input(0))) {
    r.op.set_domain("com.microsoft");
    r.op.set_op_type("NhwcMaxPool");
    copy_pool_attributes(node, r.op);
    r.op.add_input("");
    r.replaced = {&node};
  } else if ((op == "QLinearAveragePool" || op == "QLinearGlobalAveragePool") && node.domain() == "com.microsoft" &&
             eight_bit.count(node.input(0))) {
    const std::vector<std::string> parameters(node.input().begin() + 1, node.input().end());
    if (auto qtune = op == "QLinearAveragePool" && parameters.size() == 4 ? qtune_average_pool(node, parameters, index, threads)
                                                                            : std::nullopt) {
      r.op = std::move(*qtune);
    } else {
      r.op.set_domain("com.microsoft");
      r.op.set_op_type(op);
      copy_pool_attributes(node, r.op);
      set_channels_last(r.op);
      for (const std::string& in : node.input()) r.op.add_input(in);
    }
    r.replaced = {&node};
  } else if ((op == "MaxPool" || op == "AveragePool") && node.domain().empty() && node.output_size() == 1) {
    const NodeProto* dq = index.producer(node.input(0));
    const auto readers = index.consumers(node.output(0));
    if (!dq || dq->op_type() != "DequantizeLinear" || dq->input_size() < 3 || !eight_bit.count(dq->input(0)) ||
        !only_reader(index, dq->output(0), node) || readers.size() != 1 || readers[0]->op_type() != "QuantizeLinear" ||
        readers[0]->input_size() < 3)
      return std::nullopt;
    const NodeProto& q = *readers[0];
    for (const auto* n : {dq, &q})
      for (const auto& a : n->attribute())
        if (a.name() == "axis" || a.name() == "block_size") return std::nullopt;
    r.replaced = {dq, &node, &q};
    r.op.set_domain("com.microsoft");
    copy_pool_attributes(node, r.op);
    if (op == "MaxPool") {
      if (!same_constant(index, dq->input(1), q.input(1)) || !same_constant(index, dq->input(2), q.input(2))) return std::nullopt;
      r.op.set_op_type("NhwcMaxPool");
      r.op.add_input("");
    } else if (auto qtune = qtune_average_pool(node, {dq->input(1), dq->input(2), q.input(1), q.input(2)}, index, threads)) {
      r.op = std::move(*qtune);
    } else {
      r.op.set_op_type("QLinearAveragePool");
      set_channels_last(r.op);
      for (const std::string& in : {std::string(), dq->input(1), dq->input(2), q.input(1), q.input(2)}) r.op.add_input(in);
    }
  } else {
    return std::nullopt;
  }
  r.input = r.replaced.front()->input(0);
  r.output = r.replaced.back()->output(0);
  return r;
}

}  // namespace

std::size_t operations_to_nhwc(onnx::GraphProto& graph, std::map<std::string, std::vector<std::int64_t>> shapes, int threads,
                               const std::function<std::string(const std::string&)>& fresh) {
  const GraphIndex index(graph);
  std::set<std::string> eight_bit;
  for (const auto& [tensor, shape] : shapes) eight_bit.insert(tensor);
  std::map<const NodeProto*, Rewrite> at_last;  // by the last node each replaces
  std::set<const NodeProto*> replaced;
  for (const NodeProto& node : graph.node()) {
    if (replaced.count(&node)) continue;
    auto r = match_add(node, shapes);
    if (!r) r = match(node, index, eight_bit, threads);
    if (r) {
      eight_bit.insert(r->output);
      replaced.insert(r->replaced.begin(), r->replaced.end());
      at_last.emplace(r->replaced.back(), std::move(*r));
      continue;
    }
    // 8-bit values pass through these unchanged in type.
    const std::string& op = node.op_type();
    const bool passes = op == "Transpose" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
                        op == "MaxPool" || op == "Identity";
    const bool quantizes = op == "QuantizeLinear" || op.starts_with("QLinear") || node.domain() == "ai.qtune";
    if (quantizes || (passes && node.input_size() > 0 && eight_bit.count(node.input(0))))
      for (const std::string& out : node.output()) eight_bit.insert(out);
  }
  if (at_last.empty()) return 0;
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  for (const NodeProto& node : graph.node()) {
    const auto it = at_last.find(&node);
    if (it != at_last.end()) {
      Rewrite& r = it->second;
      const NodeProto& main = *r.replaced[r.replaced.size() > 1 ? 1 : 0];  // the operation itself, not its DQ / Q
      const std::string base = main.name().empty() ? main.op_type() : main.name();
      const std::string in_nhwc = fresh(base + "/x_nhwc"), out_nhwc = fresh(base + "/y_nhwc");
      *nodes.Add() = transpose(r.input, in_nhwc, fresh(base + "/to_nhwc"), kToNhwc);
      r.op.set_input(0, in_nhwc);
      for (const int position : r.more_nhwc_inputs) {
        const std::string other = fresh(base + "/input" + std::to_string(position) + "_nhwc");
        *nodes.Add() = transpose(r.op.input(position), other, fresh(base + "/input" + std::to_string(position) + "_to_nhwc"),
                                 kToNhwc);
        r.op.set_input(position, other);
      }
      r.op.set_name(fresh(base + "/nhwc"));
      r.op.add_output(out_nhwc);
      *nodes.Add() = std::move(r.op);
      *nodes.Add() = transpose(out_nhwc, r.output, fresh(base + "/to_nchw"), kToNchw);
      continue;
    }
    if (!replaced.count(&node)) *nodes.Add() = node;
  }
  graph.mutable_node()->Swap(&nodes);
  return at_last.size();
}

}  // namespace qtune::onnx_import::detail
