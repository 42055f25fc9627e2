// Reading a whole model as qtune's operations: the node units onnxruntime fuses (QDQ groups, the
// com.microsoft QLinear operators) become one operation each, with onnxruntime's arithmetic.
#include "qtune/onnx_import/model_graph.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "build_layer.h"
#include "graph_index.h"
#include "graph_shapes.h"
#include "layer_spec.h"
#include "model_proto.h"
#include "pool_geometry.h"
#include "quantized_bound.h"
#include "tensor_values.h"

namespace qtune::onnx_import {
namespace {

using detail::GraphIndex;
using detail::Where;
using onnx::NodeProto;
using onnx::TensorProto;

const std::set<std::string>& default_domain_ops() {
  static const std::set<std::string> ops = {
      "QLinearConv", "ConvInteger", "Conv",    "QLinearMatMul", "MatMulInteger", "MatMul",   "Gemm",
      "QuantizeLinear", "DequantizeLinear", "Add", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool",
      "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Relu", "Clip", "Softmax", "Identity", "Constant"};
  return ops;
}

const std::set<std::string>& microsoft_ops() {
  static const std::set<std::string> ops = {"QLinearAdd", "QLinearConcat", "QLinearAveragePool",
                                            "QLinearGlobalAveragePool", "QLinearSoftmax", "QGemm"};
  return ops;
}

// Operators that only move data: on integers they keep the input's quantization.
bool is_view(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

std::string supported_list() {
  std::string out;
  for (const std::string& op : supported_op_types()) out += (out.empty() ? "" : ", ") + op;
  return out;
}

std::string node_input(const NodeProto& node, int index) {
  return index < node.input_size() ? node.input(index) : std::string();
}

std::int64_t node_int(const NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = detail::find_attribute(node, name);
  return a ? a->i() : fallback;
}

std::optional<ElementType> element_type_of(int onnx_type) {
  switch (onnx_type) {
    case TensorProto::UINT8: return ElementType::u8;
    case TensorProto::INT8: return ElementType::s8;
    case TensorProto::INT32: return ElementType::s32;
    case TensorProto::FLOAT: return ElementType::f32;
    default: return std::nullopt;
  }
}

bool quantized(ElementType type) { return type == ElementType::u8 || type == ElementType::s8; }
std::int32_t type_min(ElementType type) { return type == ElementType::s8 ? -128 : 0; }
std::int32_t type_max(ElementType type) { return type == ElementType::s8 ? 127 : 255; }

class Reader {
 public:
  Reader(onnx::GraphProto& graph, std::string path, std::int64_t opset)
      : graph_(graph), index_(graph), path_(std::move(path)), opset_(opset) {
    for (const auto& output : graph.output()) graph_outputs_.insert(output.name());
    for (int i = 0; i < graph.node_size(); ++i) position_[&graph.node(i)] = static_cast<std::size_t>(i);
  }

  ModelGraph read() {
    ModelGraph model;
    // Units first (which nodes each fused operation stands for), then the operations in node
    // order: a unit is emitted where its main node is, which keeps producers first.
    for (int i = 0; i < graph_.node_size(); ++i) find_unit(graph_.node(i));
    for (int i = 0; i < graph_.node_size(); ++i) emit(graph_.node(i), model);
    for (const auto& input : graph_.input()) {
      if (index_.constant(input.name())) continue;
      model.inputs.push_back(input.name());
      add_tensor(model, input.name(), Where{path_ + ": graph input '" + input.name() + "'"});
    }
    for (const auto& output : graph_.output()) {
      if (!model.tensors.count(output.name()))
        throw ModelError(path_ + ": graph output '" + output.name() + "' is a constant or not computed by any node");
      model.outputs.push_back(output.name());
    }
    return model;
  }

 private:
  struct Unit {
    GraphOp op;
    std::vector<const NodeProto*> input_dequantizers;  // the DQ nodes the unit reads through
    std::vector<const NodeProto*> absorbed;            // every node it stands for but the main node
  };

  std::string label(const NodeProto& node) const { return detail::node_label(node, position_.at(&node)); }
  Where where(const NodeProto& node) const { return detail::node_where(path_, node, position_.at(&node)); }

  const NodeProto* only_consumer(const std::string& tensor) const {
    const auto consumers = index_.consumers(tensor);
    return consumers.size() == 1 && !graph_outputs_.count(tensor) ? consumers[0] : nullptr;
  }

  // A scalar constant quantization (scale at `scale_index`, zero point at `zp_index`), of the
  // tensor type the zero point has (uint8 when absent); nullopt when either is not a scalar constant.
  struct ScalarQuantization {
    Quantization q;
    ElementType type = ElementType::u8;
  };
  std::optional<ScalarQuantization> scalar_quantization(const NodeProto& node, int scale_index, int zp_index) const {
    const TensorProto* scale = index_.constant(node_input(node, scale_index));
    if (!scale) return std::nullopt;
    const Where w = where(node);
    const auto scales = detail::float_values(*scale, w, "scale");
    if (scales.size() != 1) return std::nullopt;
    if (!(std::isfinite(scales[0]) && scales[0] > 0)) {
      std::ostringstream value;
      value << scales[0];
      w.fail("scale", "scale " + value.str() + " of tensor '" + scale->name() + "' must be finite and > 0");
    }
    ScalarQuantization out;
    out.q.scale = scales[0];
    const std::string zp_name = node_input(node, zp_index);
    if (!zp_name.empty()) {
      const TensorProto* zp = index_.constant(zp_name);
      if (!zp) return std::nullopt;
      const auto type = element_type_of(zp->data_type());
      if (!type || !quantized(*type)) w.fail("zero_point", "tensor '" + zp_name + "' is " + detail::data_type_name(zp->data_type()) + ", qtune reads uint8 and int8 tensors");
      const auto values = detail::integer_values(*zp, w, "zero_point");
      if (values.size() != 1) return std::nullopt;
      out.q.zero_point = values[0];
      out.type = *type;
    }
    return out;
  }

  ScalarQuantization need_quantization(const NodeProto& node, int scale_index, int zp_index, const std::string& what) const {
    const auto q = scalar_quantization(node, scale_index, zp_index);
    if (!q) where(node).fail(what, "the scale and zero point must be per-tensor constants (initializers)");
    return *q;
  }

  // The DequantizeLinear a QDQ unit reads input `index` through: per-tensor, of an activation.
  const NodeProto* input_dequantizer(const NodeProto& node, int index) const {
    const NodeProto* dq = index_.producer(node_input(node, index));
    if (!dq || dq->op_type() != "DequantizeLinear" || index_.constant(dq->input(0))) return nullptr;
    return scalar_quantization(*dq, 1, 2) ? dq : nullptr;
  }

  // A Relu or Clip that onnxruntime deletes before a QuantizeLinear because the quantization's
  // saturation already does what it does (ReluQuantFusion, ClipQuantFusion: Relu when the zero
  // point is the type's minimum; Clip when its bounds quantize outside the type's range).
  bool redundant_before_quantize(const NodeProto& activation, const NodeProto& quantize) const {
    const auto q = scalar_quantization(quantize, 1, 2);
    if (!q) return false;
    const std::int32_t lo = type_min(q->type), hi = type_max(q->type);
    if (activation.op_type() == "Relu") return q->q.zero_point == lo;
    float min = -INFINITY, max = INFINITY;
    if (opset_ < 11) {
      if (const auto* a = detail::find_attribute(activation, "min")) min = a->f();
      if (const auto* a = detail::find_attribute(activation, "max")) max = a->f();
    } else {
      for (int i : {1, 2}) {
        const std::string name = node_input(activation, i);
        if (name.empty()) continue;
        const TensorProto* c = index_.constant(name);
        if (!c) return false;
        const auto values = detail::float_values(*c, where(activation), i == 1 ? "min" : "max");
        if (values.size() != 1) return false;
        (i == 1 ? min : max) = values[0];
      }
    }
    const auto quantize_bound = [&](float v) { return detail::unsaturated_quantized(v, q->q.scale, q->q.zero_point); };
    return (!std::isfinite(min) || quantize_bound(min) <= lo) && (!std::isfinite(max) || quantize_bound(max) >= hi);
  }

  // The QuantizeLinear a QDQ unit's float output goes to (through redundant Relu / Clip nodes,
  // which the unit absorbs), or null.
  const NodeProto* output_quantizer(const NodeProto& node, std::vector<const NodeProto*>& skipped) const {
    const NodeProto* next = only_consumer(node.output(0));
    while (next && (next->op_type() == "Relu" || next->op_type() == "Clip")) {
      const NodeProto* after = only_consumer(next->output(0));
      if (!after || after->op_type() != "QuantizeLinear" || !redundant_before_quantize(*next, *after)) return nullptr;
      skipped.push_back(next);
      next = after;
    }
    if (!next || next->op_type() != "QuantizeLinear" || !scalar_quantization(*next, 1, 2)) return nullptr;
    return next;
  }

  GraphOp base_op(const NodeProto& node, GraphOpKind kind) const {
    GraphOp op;
    op.kind = kind;
    op.name = label(node);
    op.op_type = node.op_type();
    op.nodes = {label(node)};
    return op;
  }

  // Fills the pool window of a pooling operation from its node and its input's shape.
  void set_pool(GraphOp& op, const NodeProto& node, const std::string& input) const {
    const auto shape = index_.shape(input);
    op.pool = detail::pool_geometry(node, *shape, where(node)).window;
  }

  std::int64_t softmax_axis(const NodeProto& node, const std::string& input) const {
    const auto rank = static_cast<std::int64_t>(index_.shape(input)->size());
    std::int64_t axis = node_int(node, "axis", opset_ >= 13 ? -1 : 1);
    if (axis < -rank || axis >= rank) where(node).fail("axis", std::to_string(axis) + " is outside the input's rank");
    return axis < 0 ? axis + rank : axis;
  }

  // The fused QDQ unit of a node that is not a convolution or matrix product, as onnxruntime's
  // QDQ selectors find it: every activation input through a per-tensor DequantizeLinear, the
  // output into one per-tensor QuantizeLinear, the 8-bit types equal.
  std::optional<Unit> qdq_unit(const NodeProto& node) {
    const std::string& op = node.op_type();
    static const std::set<std::string> unit_ops = {"Add", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool",
                                                   "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Softmax"};
    if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
    if (!unit_ops.count(op)) return std::nullopt;
    std::vector<int> activation_inputs;
    if (op == "Add") activation_inputs = {0, 1};
    else if (op == "Concat") for (int k = 0; k < node.input_size(); ++k) activation_inputs.push_back(k);
    else activation_inputs = {0};
    Unit unit;
    for (const int k : activation_inputs) {
      const NodeProto* dq = input_dequantizer(node, k);
      if (!dq) return std::nullopt;
      unit.input_dequantizers.push_back(dq);
    }
    std::vector<const NodeProto*> skipped;
    const NodeProto* q = output_quantizer(node, skipped);
    if (!q) return std::nullopt;
    const auto out = *scalar_quantization(*q, 1, 2);
    std::vector<ScalarQuantization> ins;
    for (const NodeProto* dq : unit.input_dequantizers) {
      ins.push_back(*scalar_quantization(*dq, 1, 2));
      if (ins.back().type != out.type) return std::nullopt;  // onnxruntime fuses equal 8-bit types only
    }
    const bool same_parameters = ins[0].q == out.q;
    GraphOpKind kind;
    if (op == "Add") kind = GraphOpKind::add;
    else if (op == "Concat") kind = GraphOpKind::concat;
    else if (op == "AveragePool") kind = GraphOpKind::average_pool;
    else if (op == "GlobalAveragePool") kind = GraphOpKind::global_average_pool;
    else if (op == "Softmax") kind = GraphOpKind::qlinear_softmax;
    else if (op == "MaxPool") kind = GraphOpKind::max_pool;
    else if (op == "Transpose") kind = GraphOpKind::transpose;
    else kind = GraphOpKind::reshape;
    // Data movement and MaxPool have their Q/DQ dropped only when the parameters are equal;
    // otherwise onnxruntime runs them in float between the two, which equals the integer
    // operation followed by a requantization (max and moves commute with a positive scale).
    unit.op = base_op(node, kind);
    if ((kind == GraphOpKind::max_pool || kind == GraphOpKind::transpose || kind == GraphOpKind::reshape) && !same_parameters)
      needs_requantize_.insert(&node);
    for (std::size_t i = 0; i < activation_inputs.size(); ++i) {
      unit.op.inputs.push_back(unit.input_dequantizers[i]->input(0));
      unit.op.input_quantization.push_back(ins[i].q);
    }
    unit.op.output = q->output(0);
    unit.op.output_quantization = out.q;
    unit.op.clamp_min = type_min(out.type);
    unit.op.clamp_max = type_max(out.type);
    unit.absorbed = unit.input_dequantizers;
    unit.absorbed.insert(unit.absorbed.end(), skipped.begin(), skipped.end());
    unit.absorbed.push_back(q);
    fill_parameters(unit.op, node, unit.op.inputs[0]);
    return unit;
  }

  // Attributes shared by the QDQ and QOperator forms of an operation.
  void fill_parameters(GraphOp& op, const NodeProto& node, const std::string& input) const {
    switch (op.kind) {
      case GraphOpKind::max_pool:
      case GraphOpKind::average_pool: set_pool(op, node, input); break;
      case GraphOpKind::concat: {
        const auto rank = static_cast<std::int64_t>(index_.shape(input)->size());
        std::int64_t axis = node_int(node, "axis", 1);
        op.axis = axis < 0 ? axis + rank : axis;
        break;
      }
      case GraphOpKind::softmax:
      case GraphOpKind::qlinear_softmax:
        op.axis = softmax_axis(node, input);
        // onnxruntime's fused QLinearSoftmax keeps the Softmax's version: before 13 it reduces
        // over every axis from `axis` on.
        op.softmax_opset = node.op_type() == "QLinearSoftmax" ? node_int(node, "opset", 1) : opset_;
        break;
      case GraphOpKind::transpose: {
        const auto* perm = detail::find_attribute(node, "perm");
        const auto rank = static_cast<std::int64_t>(index_.shape(input)->size());
        if (perm) op.permutation.assign(perm->ints().begin(), perm->ints().end());
        else for (std::int64_t i = rank; i-- > 0;) op.permutation.push_back(i);
        break;
      }
      default: break;
    }
    if (node.op_type() == "MaxPool") {
      if (node_int(node, "storage_order", 0) != 0) where(node).fail("storage_order", "only 0 (row major) is computed");
    }
  }

  // The unit a node is the main node of, recorded in units_; nodes a unit absorbs in absorbed_.
  void find_unit(const NodeProto& node) {
    const std::string& op = node.op_type();
    const bool microsoft = node.domain() == "com.microsoft";
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    if ((microsoft && !microsoft_ops().count(op)) || (default_domain && !default_domain_ops().count(op)) ||
        (!microsoft && !default_domain)) {
      where(node).fail("", "the op type " + (node.domain().empty() ? "" : node.domain() + ".") + op +
                               " is not one qtune's executor runs (supported: " + supported_list() + ")");
    }
    if (op == "QuantizeLinear" || op == "DequantizeLinear" || op == "Constant" || absorbed_.count(&node)) return;
    try {
      if (auto spec = detail::match_layer(node, where(node), index_, opset_)) {
        Unit unit;
        unit.op = base_op(node, GraphOpKind::layer);
        ModelLayer layer = detail::build_layer(*spec, index_);
        layer.name = label(node);
        unit.op.inputs = {spec->x};
        unit.op.output = spec->y;
        unit.op.input_quantization = {Quantization{spec->x_scale, spec->x_zero_point}};
        unit.op.output_quantization = Quantization{spec->y_scale, spec->y_zero_point};
        for (const NodeProto* part : spec->absorbed) {
          if (part != &node) unit.absorbed.push_back(part);
          layer.nodes.push_back(label(*part));
        }
        unit.op.nodes = layer.nodes;
        const std::int64_t layer_n = layer.gemm.n;
        if (spec->absorbed.size() > 1 && spec->absorbed[0]->op_type() == "DequantizeLinear")
          unit.input_dequantizers = {spec->absorbed[0]};
        if (spec->float_output) {
          // onnxruntime's MatMulIntegerToFloat / float QGemm: float(sum) * (x_scale * w_scale) [+ bias].
          unit.op.kind = GraphOpKind::float_layer;
          for (const float w_scale : spec->w_scales) unit.op.float_scales.push_back(spec->x_scale * w_scale);
          unit.op.float_bias = spec->float_bias;
          if (!spec->float_bias.empty() && static_cast<std::int64_t>(spec->float_bias.size()) != layer_n)
            where(node).fail("bias", "the float bias holds " + std::to_string(spec->float_bias.size()) + " values, expected " + std::to_string(layer_n));
        }
        unit.op.layer = std::move(layer);
        add_unit(node, std::move(unit));
        return;
      }
    } catch (const detail::Unsupported& e) {
      where(node).fail("", std::string("not computed: ") + e.what());
    }
    if (auto unit = qdq_unit(node)) {
      add_unit(node, std::move(*unit));
      return;
    }
    units_.emplace(&node, qoperator_or_float(node));
  }

  void add_unit(const NodeProto& node, Unit unit) {
    for (const NodeProto* part : unit.absorbed) {
      if (part->op_type() != "DequantizeLinear") absorbed_.insert(part);
      unit.op.nodes.push_back(label(*part));
    }
    // A DequantizeLinear stays an operation of its own when some reader of its output is not a unit reading through it.
    for (const NodeProto* dq : unit.input_dequantizers) dequantizer_readers_[dq].insert(&node);
    for (const NodeProto* part : unit.absorbed) {
      if (part->op_type() == "DequantizeLinear" && index_.constant(part->input(0))) absorbed_.insert(part);  // weights
    }
    std::sort(unit.op.nodes.begin(), unit.op.nodes.end());
    unit.op.nodes.erase(std::unique(unit.op.nodes.begin(), unit.op.nodes.end()), unit.op.nodes.end());
    units_.emplace(&node, std::move(unit));
  }

  // A node that is not part of a fused unit: a QOperator operation, or one on float tensors.
  Unit qoperator_or_float(const NodeProto& node) const {
    const std::string& op = node.op_type();
    const Where w = where(node);
    Unit unit;
    const auto in_type = [&](int k) { return element_type_of(index_.element_type(node_input(node, k)).value_or(0)); };
    if (op == "QLinearAdd") {
      unit.op = base_op(node, GraphOpKind::add);
      const auto a = need_quantization(node, 1, 2, "A_scale"), b = need_quantization(node, 4, 5, "B_scale");
      const auto c = need_quantization(node, 6, 7, "C_scale");
      unit.op.inputs = {node.input(0), node.input(3)};
      unit.op.input_quantization = {a.q, b.q};
      unit.op.output_quantization = c.q;
    } else if (op == "QLinearConcat") {
      unit.op = base_op(node, GraphOpKind::concat);
      unit.op.output_quantization = need_quantization(node, 0, 1, "Y_scale").q;
      if ((node.input_size() - 2) % 3 != 0 || node.input_size() < 5) w.fail("inputs", "QLinearConcat takes Y_scale, Y_zero_point and triples (X, x_scale, x_zero_point)");
      for (int k = 2; k < node.input_size(); k += 3) {
        unit.op.inputs.push_back(node.input(k));
        unit.op.input_quantization.push_back(need_quantization(node, k + 1, k + 2, "x_scale").q);
      }
    } else if (op == "QLinearAveragePool" || op == "QLinearGlobalAveragePool" || op == "QLinearSoftmax") {
      unit.op = base_op(node, op == "QLinearAveragePool" ? GraphOpKind::average_pool
                              : op == "QLinearSoftmax"   ? GraphOpKind::qlinear_softmax
                                                         : GraphOpKind::global_average_pool);
      unit.op.inputs = {node.input(0)};
      unit.op.input_quantization = {need_quantization(node, 1, 2, "x_scale").q};
      unit.op.output_quantization = need_quantization(node, 3, 4, "y_scale").q;
    } else if (op == "QuantizeLinear") {
      unit.op = base_op(node, GraphOpKind::quantize);
      unit.op.inputs = {node.input(0)};
      unit.op.output_quantization = need_quantization(node, 1, 2, "y_scale").q;
    } else if (op == "DequantizeLinear") {
      unit.op = base_op(node, GraphOpKind::dequantize);
      unit.op.inputs = {node.input(0)};
      unit.op.input_quantization = {need_quantization(node, 1, 2, "x_scale").q};
    } else if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") {
      // On integers (MaxPool) or, outside quantized units, on float.
      unit.op = base_op(node, op == "MaxPool" ? GraphOpKind::max_pool : op == "AveragePool" ? GraphOpKind::average_pool
                                                                                            : GraphOpKind::global_average_pool);
      unit.op.inputs = {node.input(0)};
      if (op != "MaxPool" && in_type(0) != ElementType::f32)
        w.fail("X", op + " on " + element_type_name(in_type(0).value_or(ElementType::u8)) +
                        " outside a QDQ unit: onnxruntime's " + op + " takes float (quantized: com.microsoft.QLinear" + op + ")");
    } else if (op == "Concat") {
      unit.op = base_op(node, GraphOpKind::concat);
      for (int k = 0; k < node.input_size(); ++k) unit.op.inputs.push_back(node.input(k));
    } else if (op == "Transpose" || is_view(op)) {
      unit.op = base_op(node, op == "Transpose" ? GraphOpKind::transpose : GraphOpKind::reshape);
      unit.op.inputs = {node.input(0)};
    } else if (op == "Relu" || op == "Clip") {
      if (in_type(0) != ElementType::f32) w.fail("X", op + " on " + element_type_name(in_type(0).value_or(ElementType::u8)) + " outside a quantized unit: qtune computes it on float");
      unit.op = base_op(node, GraphOpKind::float_clamp);
      unit.op.inputs = {node.input(0)};
      unit.op.float_min = op == "Relu" ? 0.0f : -INFINITY;
      unit.op.float_max = INFINITY;
      if (op == "Clip") read_clip_bounds(node, unit.op);
    } else if (op == "Add") {
      if (in_type(0) != ElementType::f32 || in_type(1) != ElementType::f32) w.fail("A", "an Add of quantized tensors outside a QDQ unit");
      unit.op = base_op(node, GraphOpKind::float_add);
      unit.op.inputs = {node.input(0), node.input(1)};
    } else if (op == "Softmax") {
      if (in_type(0) != ElementType::f32) w.fail("input", "Softmax on a quantized tensor outside a QDQ unit");
      unit.op = base_op(node, GraphOpKind::softmax);
      unit.op.inputs = {node.input(0)};
    } else {
      w.fail("", "a " + op + " outside the forms qtune computes (the QOperator node, or a QDQ unit with per-tensor "
                 "DequantizeLinear inputs and one QuantizeLinear after it)");
    }
    unit.op.output = node.output(0);
    fill_parameters(unit.op, node, unit.op.inputs[0]);
    for (const std::string& input : unit.op.inputs) {
      if (index_.constant(input)) w.fail("inputs", "'" + input + "' is a constant: qtune's " + op + " reads activations");
    }
    return unit;
  }

  void read_clip_bounds(const NodeProto& node, GraphOp& op) const {
    if (opset_ < 11) {
      if (const auto* a = detail::find_attribute(node, "min")) op.float_min = a->f();
      if (const auto* a = detail::find_attribute(node, "max")) op.float_max = a->f();
      return;
    }
    for (int i : {1, 2}) {
      const std::string name = node_input(node, i);
      if (name.empty()) continue;
      const TensorProto* c = index_.constant(name);
      if (!c) where(node).fail(i == 1 ? "min" : "max", "must be a constant");
      const auto values = detail::float_values(*c, where(node), i == 1 ? "min" : "max");
      if (values.size() != 1) where(node).fail(i == 1 ? "min" : "max", "must be a scalar");
      (i == 1 ? op.float_min : op.float_max) = values[0];
    }
  }

  void add_tensor(ModelGraph& model, const std::string& name, const Where& w) const {
    if (model.tensors.count(name)) return;
    const auto type = index_.element_type(name);
    const auto shape = index_.shape(name);
    if (!type || !shape) w.fail(name, "the type or shape of tensor '" + name + "' is not known");
    const auto element = element_type_of(*type);
    if (!element) w.fail(name, "tensor '" + name + "' is " + detail::data_type_name(*type) + ": qtune's executor holds uint8, int8, int32 and float tensors");
    model.tensors[name] = GraphTensor{name, *element, *shape};
  }

  void emit(const NodeProto& node, ModelGraph& model) {
    if (absorbed_.count(&node)) return;
    if (node.op_type() == "Constant") return;
    auto unit = units_.find(&node);
    if (node.op_type() == "DequantizeLinear" || node.op_type() == "QuantizeLinear") {
      if (node.op_type() == "DequantizeLinear" && index_.constant(node.input(0)))
        where(node).fail("x", "a DequantizeLinear of a constant that no convolution or matrix product reads");
      if (node.op_type() == "DequantizeLinear" && !dequantizer_needed(node)) return;
      GraphOp op = qoperator_or_float(node).op;
      push(model, std::move(op), node);
      return;
    }
    if (unit == units_.end()) return;
    GraphOp op = unit->second.op;
    if (needs_requantize_.count(&node)) {
      // The integer operation into a tensor of its own, then the requantization into the Q's output.
      GraphOp requantize = base_op(node, GraphOpKind::requantize);
      requantize.name = op.name + "/requantize";
      requantize.nodes = op.nodes;
      requantize.output = op.output;
      requantize.input_quantization = {op.input_quantization[0]};
      requantize.output_quantization = op.output_quantization;
      requantize.clamp_min = op.clamp_min;
      requantize.clamp_max = op.clamp_max;
      op.output = op.output + "/before_requantize";
      op.output_quantization = op.input_quantization[0];
      GraphTensor before = {op.output, model.tensors.at(op.inputs[0]).type, index_.shape(requantize.output).value()};
      model.tensors[before.name] = before;
      requantize.inputs = {op.output};
      push(model, std::move(op), node);
      push(model, std::move(requantize), node);
      return;
    }
    push(model, std::move(op), node);
  }

  bool dequantizer_needed(const NodeProto& dq) const {
    if (graph_outputs_.count(dq.output(0))) return true;
    const auto readers = dequantizer_readers_.find(&dq);
    for (const NodeProto* consumer : index_.consumers(dq.output(0))) {
      if (readers == dequantizer_readers_.end() || !readers->second.count(consumer)) return true;
    }
    return false;
  }

  void push(ModelGraph& model, GraphOp op, const NodeProto& node) {
    const Where w = where(node);
    for (const std::string& input : op.inputs) add_tensor(model, input, w);
    if (!model.tensors.count(op.output)) add_tensor(model, op.output, w);
    check_types(model, op, w);
    model.ops.push_back(std::move(op));
  }

  // Each operation's element types, which the executor's kernels rely on.
  void check_types(const ModelGraph& model, const GraphOp& op, const Where& w) const {
    const auto type = [&](const std::string& name) { return model.tensors.at(name).type; };
    const ElementType out = type(op.output);
    const auto need = [&](bool ok, const std::string& what) {
      if (!ok) w.fail("", what);
    };
    switch (op.kind) {
      case GraphOpKind::layer: break;  // checked by the layer reader
      case GraphOpKind::float_layer: need(out == ElementType::f32, "a matrix product with a float output writes float"); break;
      case GraphOpKind::quantize:
        need(type(op.inputs[0]) == ElementType::f32 && quantized(out), "QuantizeLinear from float to uint8/int8 only");
        break;
      case GraphOpKind::dequantize:
        need(quantized(type(op.inputs[0])) && out == ElementType::f32, "DequantizeLinear from uint8/int8 to float only");
        break;
      case GraphOpKind::float_clamp:
      case GraphOpKind::float_add:
      case GraphOpKind::softmax:
        for (const auto& input : op.inputs) need(type(input) == ElementType::f32 && out == ElementType::f32, op.op_type + " on float only");
        break;
      case GraphOpKind::reshape:
      case GraphOpKind::transpose: need(type(op.inputs[0]) == out, "the output type differs from the input's"); break;
      case GraphOpKind::max_pool:
      case GraphOpKind::average_pool:
      case GraphOpKind::global_average_pool:
      case GraphOpKind::concat:
        if (out == ElementType::f32) {  // the float forms, outside quantized units
          need(op.input_quantization.empty(), op.op_type + ": a quantized operation with a float output");
          for (const auto& input : op.inputs) need(type(input) == out, op.op_type + " on float: every input float");
          break;
        }
        [[fallthrough]];
      default:
        for (const auto& input : op.inputs) need(quantized(type(input)), op.op_type + ": input '" + input + "' is not uint8/int8");
        need(quantized(out), op.op_type + ": the output is not uint8/int8");
        if (op.kind == GraphOpKind::add || op.kind == GraphOpKind::concat || op.kind == GraphOpKind::max_pool ||
            op.kind == GraphOpKind::average_pool || op.kind == GraphOpKind::global_average_pool || op.kind == GraphOpKind::qlinear_softmax) {
          for (const auto& input : op.inputs) need(type(input) == out, op.op_type + ": input and output types differ");
        }
        break;
    }
    if (op.kind == GraphOpKind::add || op.kind == GraphOpKind::float_add) {
      need(model.tensors.at(op.inputs[0]).shape == model.tensors.at(op.inputs[1]).shape,
           "an Add of tensors of different shapes (broadcasting adds are not computed)");
    }
  }

  onnx::GraphProto& graph_;
  GraphIndex index_;
  std::string path_;
  std::int64_t opset_;
  std::set<std::string> graph_outputs_;
  std::map<const NodeProto*, std::size_t> position_;
  std::map<const NodeProto*, Unit> units_;
  std::set<const NodeProto*> absorbed_;
  std::map<const NodeProto*, std::set<const NodeProto*>> dequantizer_readers_;
  std::set<const NodeProto*> needs_requantize_;  // integer data movement followed by a requantization
};

}  // namespace

std::string element_type_name(ElementType type) {
  switch (type) {
    case ElementType::u8: return "uint8";
    case ElementType::s8: return "int8";
    case ElementType::s32: return "int32";
    case ElementType::f32: return "float";
  }
  return "?";
}

std::size_t element_bytes(ElementType type) { return type == ElementType::u8 || type == ElementType::s8 ? 1 : 4; }

std::int64_t GraphTensor::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return n;
}

std::string to_string(GraphOpKind kind) {
  switch (kind) {
    case GraphOpKind::layer: return "layer";
    case GraphOpKind::float_layer: return "float_layer";
    case GraphOpKind::add: return "add";
    case GraphOpKind::concat: return "concat";
    case GraphOpKind::max_pool: return "max_pool";
    case GraphOpKind::average_pool: return "average_pool";
    case GraphOpKind::global_average_pool: return "global_average_pool";
    case GraphOpKind::reshape: return "reshape";
    case GraphOpKind::transpose: return "transpose";
    case GraphOpKind::requantize: return "requantize";
    case GraphOpKind::quantize: return "quantize";
    case GraphOpKind::dequantize: return "dequantize";
    case GraphOpKind::clamp: return "clamp";
    case GraphOpKind::float_clamp: return "float_clamp";
    case GraphOpKind::float_add: return "float_add";
    case GraphOpKind::softmax: return "softmax";
    case GraphOpKind::qlinear_softmax: return "qlinear_softmax";
  }
  return "?";
}

const GraphTensor& ModelGraph::tensor(const std::string& name) const {
  const auto it = tensors.find(name);
  if (it == tensors.end()) throw std::out_of_range("tensor '" + name + "' is not in the graph of " + path);
  return it->second;
}

const std::vector<std::string>& supported_op_types() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out(default_domain_ops().begin(), default_domain_ops().end());
    for (const std::string& op : microsoft_ops()) out.push_back("com.microsoft." + op);
    return out;
  }();
  return list;
}

ModelGraph read_model_graph(const std::string& path, const ImportOptions& options) {
  onnx::ModelProto proto = detail::parse_model(path);
  const std::int64_t opset = detail::default_opset(proto, path);
  onnx::GraphProto& graph = *proto.mutable_graph();
  detail::bind_constant_inputs(graph, options, path);
  detail::set_input_shapes(graph, options, path);
  // The op types first: an unsupported node is named with the supported list before shapes are inferred.
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeProto& node = graph.node(i);
    const bool microsoft = node.domain() == "com.microsoft";
    const bool known = microsoft ? microsoft_ops().count(node.op_type()) > 0
                                 : (node.domain().empty() || node.domain() == "ai.onnx") && default_domain_ops().count(node.op_type()) > 0;
    if (!known)
      detail::node_where(path, node, static_cast<std::size_t>(i))
          .fail("", "the op type " + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() +
                        " is not one qtune's executor runs (supported: " + supported_list() + ")");
  }
  detail::infer_graph_shapes(graph, path, opset, /*stop_at_unknown=*/false);
  ModelGraph model = Reader(graph, path, opset).read();
  model.path = path;
  model.graph_name = graph.name();
  model.opset = opset;
  return model;
}

}  // namespace qtune::onnx_import
