// Recognizes the quantized layers of a graph: the QOperator nodes (QLinearConv, QLinearMatMul,
// ConvInteger, MatMulInteger) and the QDQ pattern DequantizeLinear -> Conv | MatMul | Gemm
// [-> Relu | Clip] -> QuantizeLinear, and reads their quantization parameters.
#include <cmath>
#include <sstream>

#include "layer_spec.h"
#include "quantized_bound.h"

namespace qtune::onnx_import::detail {
namespace {

using onnx::NodeProto;
using onnx::TensorProto;

std::string input_or_empty(const NodeProto& node, int index) {
  return index < node.input_size() ? node.input(index) : std::string();
}

// The constant at input `index`: ModelError when missing, Unsupported when computed at run time.
const TensorProto& need_constant(const NodeProto& node, int index, const std::string& field, const Where& where,
                                 const GraphIndex& graph) {
  const std::string tensor = input_or_empty(node, index);
  if (tensor.empty()) where.fail(field, "missing (input " + std::to_string(index) + ")");
  const TensorProto* constant = graph.constant(tensor);
  if (!constant) throw Unsupported("field '" + field + "' ('" + tensor + "') is computed at run time, not a constant");
  return *constant;
}

DType quantized_type(int onnx_type, const std::string& what) {
  if (onnx_type == TensorProto::UINT8) return DType::u8;
  if (onnx_type == TensorProto::INT8) return DType::s8;
  throw Unsupported(what + " is " + data_type_name(onnx_type) + ", qtune computes uint8 and int8");
}

std::vector<float> read_scales(const TensorProto& tensor, const Where& where, const std::string& field) {
  std::vector<float> scales = float_values(tensor, where, field);
  if (scales.empty()) where.fail(field, "no scale in tensor '" + tensor.name() + "'");
  for (std::size_t i = 0; i < scales.size(); ++i) {
    if (!(std::isfinite(scales[i]) && scales[i] > 0)) {
      std::ostringstream value;
      value << scales[i];
      where.fail(field, "scale [" + std::to_string(i) + "] = " + value.str() + " of tensor '" + tensor.name() +
                            "' must be finite and > 0");
    }
  }
  return scales;
}

// Zero points must have their tensor's element type (ONNX's type constraint T).
std::vector<std::int32_t> read_zero_points(const TensorProto& tensor, int tensor_type, const Where& where,
                                           const std::string& field) {
  if (tensor.data_type() != tensor_type) {
    where.fail(field, "zero point tensor '" + tensor.name() + "' is " + data_type_name(tensor.data_type()) +
                          ", the tensor it belongs to is " + data_type_name(tensor_type));
  }
  std::vector<std::int32_t> zero_points = integer_values(tensor, where, field);
  if (zero_points.empty()) where.fail(field, "no zero point in tensor '" + tensor.name() + "'");
  return zero_points;
}

// Optional zero point at input `index`, 0 when absent.
std::vector<std::int32_t> optional_zero_points(const NodeProto& node, int index, int tensor_type,
                                               const std::string& field, const Where& where, const GraphIndex& graph) {
  if (input_or_empty(node, index).empty()) return {0};
  return read_zero_points(need_constant(node, index, field, where, graph), tensor_type, where, field);
}

template <typename T>
T only_value(const std::vector<T>& values, const std::string& field) {
  if (values.size() != 1) throw Unsupported("field '" + field + "' holds " + std::to_string(values.size()) +
                                            " values: qtune quantizes activations per tensor");
  return values[0];
}

// The element type of an activation: what shape inference says, else its zero point's type.
int activation_type(const std::string& tensor, const NodeProto& node, int zero_point_index, const GraphIndex& graph) {
  if (auto type = graph.element_type(tensor)) return *type;
  const std::string zp = input_or_empty(node, zero_point_index);
  if (const TensorProto* c = zp.empty() ? nullptr : graph.constant(zp)) return c->data_type();
  return TensorProto::UINT8;
}

void read_activation(LayerSpec& spec, const NodeProto& node, int tensor, int scale, int zero_point, bool with_scale,
                     const GraphIndex& graph) {
  const Where& where = spec.where;
  spec.x = input_or_empty(node, tensor);
  if (graph.constant(spec.x)) throw Unsupported("its input '" + spec.x + "' is a constant, not an activation");
  const int type = activation_type(spec.x, node, zero_point, graph);
  spec.x_type = quantized_type(type, "activation '" + spec.x + "'");
  if (with_scale) spec.x_scale = only_value(read_scales(need_constant(node, scale, "x_scale", where, graph), where, "x_scale"), "x_scale");
  spec.x_zero_point = only_value(optional_zero_points(node, zero_point, type, "x_zero_point", where, graph), "x_zero_point");
}

void read_weights(LayerSpec& spec, const NodeProto& node, int tensor, int scale, int zero_point, bool with_scale,
                  const GraphIndex& graph) {
  const Where& where = spec.where;
  spec.w = &need_constant(node, tensor, spec.w_field, where, graph);
  spec.w_unsigned = quantized_type(spec.w->data_type(), "weight tensor '" + spec.w->name() + "'") == DType::u8;
  if (with_scale) spec.w_scales = read_scales(need_constant(node, scale, "w_scale", where, graph), where, "w_scale");
  spec.w_zero_points = optional_zero_points(node, zero_point, spec.w->data_type(), "w_zero_point", where, graph);
}

void read_output(LayerSpec& spec, const NodeProto& node, int scale, int zero_point, const GraphIndex& graph) {
  const Where& where = spec.where;
  spec.y_scale = only_value(read_scales(need_constant(node, scale, "y_scale", where, graph), where, "y_scale"), "y_scale");
  // QuantizeLinear without a zero point writes uint8.
  const std::string zp = input_or_empty(node, zero_point);
  const TensorProto* zp_tensor = zp.empty() ? nullptr : &need_constant(node, zero_point, "y_zero_point", where, graph);
  const int type = zp_tensor ? zp_tensor->data_type() : TensorProto::UINT8;
  spec.y_type = quantized_type(type, "output zero point");
  spec.y_zero_point = zp_tensor ? only_value(read_zero_points(*zp_tensor, type, where, "y_zero_point"), "y_zero_point") : 0;
  spec.qmin = spec.y_type == DType::u8 ? 0 : -128;
  spec.qmax = spec.y_type == DType::u8 ? 255 : 127;
}

void read_int32_bias(LayerSpec& spec, const TensorProto& bias, const std::string& field) {
  if (bias.data_type() != TensorProto::INT32)
    throw Unsupported("its bias '" + bias.name() + "' is " + data_type_name(bias.data_type()) + ", not int32");
  spec.bias = integer_values(bias, spec.where, field);
}

std::int64_t int_attribute(const NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

float float_attribute(const NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->f() : fallback;
}

// The single node reading `tensor`, or null.
const NodeProto* only_consumer(const std::string& tensor, const GraphIndex& graph) {
  const auto consumers = graph.consumers(tensor);
  return consumers.size() == 1 ? consumers[0] : nullptr;
}

const NodeProto& dequantize_producer(const NodeProto& node, int index, const GraphIndex& graph) {
  const NodeProto* dq = graph.producer(input_or_empty(node, index));
  if (!dq || dq->op_type() != "DequantizeLinear")
    throw Unsupported("a float " + node.op_type() + ": its input " + std::to_string(index) +
                      " does not come from a DequantizeLinear");
  return *dq;
}

// The weights' per-channel axis must be the output channels'.
void check_weight_axis(const LayerSpec& spec, const NodeProto& dq) {
  if (spec.w_scales.size() <= 1 && spec.w_zero_points.size() <= 1) return;
  const std::int64_t rank = spec.w->dims_size();
  std::int64_t axis = int_attribute(dq, "axis", 1);
  if (axis < 0) axis += rank;
  const std::int64_t expected = spec.conv ? 0 : spec.trans_b ? 0 : rank - 1;
  if (axis != expected)
    throw Unsupported("its weights are quantized per axis " + std::to_string(axis) + ", not per output channel (axis " +
                      std::to_string(expected) + ")");
}

// Relu / Clip between the layer and its QuantizeLinear become clamp bounds (in y's integers:
// Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)) since rounding is monotonic).
void apply_activation(LayerSpec& spec, const NodeProto& activation, const GraphIndex& graph, std::int64_t opset) {
  float lo = -INFINITY, hi = INFINITY;
  if (activation.op_type() == "Relu") {
    lo = 0;
  } else if (opset < 11) {
    lo = float_attribute(activation, "min", -INFINITY);
    hi = float_attribute(activation, "max", INFINITY);
  } else {
    for (int i : {1, 2}) {
      if (input_or_empty(activation, i).empty()) continue;
      const std::string field = i == 1 ? "min" : "max";
      const auto values = float_values(need_constant(activation, i, field, spec.where, graph), spec.where, field);
      (i == 1 ? lo : hi) = only_value(values, field);
    }
  }
  if (lo > hi) lo = hi;  // Clip is min(max(v, lo), hi): where the bounds cross, every output is hi
  const auto quantize = [&](float v) { return unsaturated_quantized(v, spec.y_scale, spec.y_zero_point); };
  if (std::isfinite(lo) && quantize(lo) > spec.qmin)
    spec.qmin = static_cast<std::int32_t>(std::min(quantize(lo), static_cast<double>(spec.qmax)));
  if (std::isfinite(hi) && quantize(hi) < spec.qmax)
    spec.qmax = static_cast<std::int32_t>(std::max(quantize(hi), static_cast<double>(spec.qmin)));
}

LayerSpec qoperator(const NodeProto& node, const Where& where, const GraphIndex& graph) {
  LayerSpec spec;
  spec.node = &node;
  spec.where = where;
  const std::string& op = node.op_type();
  spec.conv = op == "QLinearConv" || op == "ConvInteger";
  spec.requantized = op == "QLinearConv" || op == "QLinearMatMul";
  spec.w_field = spec.conv ? "w" : "b";
  if (spec.requantized) {
    read_activation(spec, node, 0, 1, 2, true, graph);
    read_weights(spec, node, 3, 4, 5, true, graph);
    read_output(spec, node, 6, 7, graph);
    if (op == "QLinearConv" && !input_or_empty(node, 8).empty())
      read_int32_bias(spec, need_constant(node, 8, "B", where, graph), "B");
  } else {
    read_activation(spec, node, 0, -1, 2, false, graph);
    read_weights(spec, node, 1, -1, 3, false, graph);
  }
  spec.y = node.output(0);
  spec.absorbed = {&node};
  return spec;
}

// com.microsoft QGemm: A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (int32 bias), y_scale,
// y_zero_point. onnxruntime's scale is alpha * a_scale * b_scale / y_scale, so alpha must be 1 for
// the float product to be qtune's x_scale * w_scale / y_scale.
LayerSpec qgemm(const NodeProto& node, const Where& where, const GraphIndex& graph) {
  LayerSpec spec;
  spec.node = &node;
  spec.where = where;
  spec.conv = false;
  spec.w_field = "B";
  if (int_attribute(node, "transA", 0) != 0) throw Unsupported("QGemm with transA = 1");
  if (float_attribute(node, "alpha", 1) != 1) throw Unsupported("QGemm with alpha other than 1");
  if (input_or_empty(node, 7).empty()) throw Unsupported("a QGemm without y_scale (float output)");
  spec.trans_b = int_attribute(node, "transB", 0) != 0;
  read_activation(spec, node, 0, 1, 2, true, graph);
  read_weights(spec, node, 3, 4, 5, true, graph);
  if (!input_or_empty(node, 6).empty()) read_int32_bias(spec, need_constant(node, 6, "C", where, graph), "C");
  read_output(spec, node, 7, 8, graph);
  spec.y = node.output(0);
  spec.absorbed = {&node};
  return spec;
}

// A QDQ matrix product with a float output (the logits of a classifier): int32 sums, scaled in
// float; a MatMul's bias comes as an Add of a constant float vector, absorbed here.
LayerSpec float_output(LayerSpec spec, const NodeProto& node, const GraphIndex& graph) {
  spec.requantized = false;
  spec.float_output = true;
  spec.y = node.output(0);
  const NodeProto* add = only_consumer(node.output(0), graph);
  if (node.op_type() == "MatMul" && add && add->op_type() == "Add" && add->input_size() == 2) {
    const int other = add->input(0) == node.output(0) ? 1 : 0;
    const TensorProto* bias = graph.constant(add->input(other));
    if (bias && bias->data_type() == TensorProto::FLOAT) {
      spec.float_bias = float_values(*bias, spec.where, "bias");
      spec.absorbed.push_back(add);
      spec.y = add->output(0);
    }
  }
  return spec;
}

LayerSpec qdq(const NodeProto& node, const Where& where, const GraphIndex& graph, std::int64_t opset) {
  LayerSpec spec;
  spec.node = &node;
  spec.where = where;
  spec.conv = node.op_type() == "Conv";
  spec.w_field = "weights";
  if (node.op_type() == "Gemm") {
    if (int_attribute(node, "transA", 0) != 0) throw Unsupported("Gemm with transA = 1");
    if (float_attribute(node, "alpha", 1) != 1 || float_attribute(node, "beta", 1) != 1)
      throw Unsupported("Gemm with alpha or beta other than 1");
    spec.trans_b = int_attribute(node, "transB", 0) != 0;
  }
  const NodeProto& dq_x = dequantize_producer(node, 0, graph);
  read_activation(spec, dq_x, 0, 1, 2, true, graph);
  const NodeProto& dq_w = dequantize_producer(node, 1, graph);
  read_weights(spec, dq_w, 0, 1, 2, true, graph);
  check_weight_axis(spec, dq_w);
  spec.absorbed = {&dq_x, &dq_w, &node};
  const TensorProto* float_bias = input_or_empty(node, 2).empty() ? nullptr : graph.constant(node.input(2));
  if (float_bias && float_bias->data_type() == TensorProto::FLOAT) {
    // A float bias (PyTorch-style exporters): onnxruntime leaves such a Conv unfused and computes
    // it in float; qtune adds the bias in the integers, rounded to x_scale * w_scale, which can
    // differ from onnxruntime's float result by one step where a value lies near a rounding tie.
    const auto values = float_values(*float_bias, where, "B");
    for (std::size_t c = 0; c < values.size(); ++c) {
      const float w_scale = spec.w_scales[spec.w_scales.size() == 1 ? 0 : std::min(c, spec.w_scales.size() - 1)];
      const double step = static_cast<double>(spec.x_scale) * static_cast<double>(w_scale);
      const double q = std::nearbyint(static_cast<double>(values[c]) / step);
      if (!(std::fabs(q) < 2147483647.0)) where.fail("B", "the float bias " + std::to_string(values[c]) + " does not fit int32 at scale x_scale * w_scale");
      spec.bias.push_back(static_cast<std::int32_t>(q));
    }
  } else if (!input_or_empty(node, 2).empty()) {
    const NodeProto& dq_b = dequantize_producer(node, 2, graph);
    read_int32_bias(spec, need_constant(dq_b, 0, "bias", where, graph), "bias");
    for (const std::int32_t zp : optional_zero_points(dq_b, 2, TensorProto::INT32, "bias_zero_point", where, graph)) {
      if (zp != 0) throw Unsupported("its int32 bias has a nonzero zero point");
    }
    spec.absorbed.push_back(&dq_b);
  }
  std::vector<const NodeProto*> activations;
  const NodeProto* next = only_consumer(node.output(0), graph);
  while (next && (next->op_type() == "Relu" || next->op_type() == "Clip")) {
    activations.push_back(next);
    next = only_consumer(next->output(0), graph);
  }
  if ((!next || next->op_type() != "QuantizeLinear") && !spec.conv && activations.empty()) return float_output(spec, node, graph);
  if (!next || next->op_type() != "QuantizeLinear")
    throw Unsupported("its float output is not quantized by a single QuantizeLinear");
  read_output(spec, *next, 1, 2, graph);
  for (const NodeProto* activation : activations) {
    apply_activation(spec, *activation, graph, opset);
    spec.absorbed.push_back(activation);
  }
  spec.absorbed.push_back(next);
  spec.y = next->output(0);
  return spec;
}

}  // namespace

const onnx::AttributeProto* find_attribute(const NodeProto& node, const std::string& name) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

std::optional<LayerSpec> match_layer(const NodeProto& node, const Where& where, const GraphIndex& graph, std::int64_t opset) {
  const std::string& op = node.op_type();
  if (node.domain() == "com.microsoft" && op == "QGemm") return qgemm(node, where, graph);
  if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
  if (op == "QLinearConv" || op == "QLinearMatMul" || op == "ConvInteger" || op == "MatMulInteger")
    return qoperator(node, where, graph);
  if (op == "Conv" || op == "MatMul" || op == "Gemm") return qdq(node, where, graph, opset);
  return std::nullopt;
}

}  // namespace qtune::onnx_import::detail
