#include "qtune/onnx_import/layer_model.h"

#include <onnx/onnx_pb.h>

#include <stdexcept>
#include <type_traits>

namespace qtune::onnx_import {
namespace {

// The opset of the written models: QLinearConv / QLinearMatMul with per-channel weight scales.
constexpr std::int64_t kOpset = 13;

onnx::TensorProto_DataType onnx_type(DType t) {
  switch (t) {
    case DType::u8: return onnx::TensorProto_DataType_UINT8;
    case DType::s8: return onnx::TensorProto_DataType_INT8;
    case DType::s32: return onnx::TensorProto_DataType_INT32;
  }
  throw std::invalid_argument("no ONNX type for this element type");
}

// An initializer of `type` holding `values` (int32_data carries every integer type narrower than 32
// bits, float_data floats); a scalar when dims is empty.
template <typename T>
void add_initializer(onnx::GraphProto& graph, const std::string& name, onnx::TensorProto_DataType type,
                     const std::vector<std::int64_t>& dims, const std::vector<T>& values) {
  onnx::TensorProto& t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (const auto d : dims) t.add_dims(d);
  for (const T v : values) {
    if constexpr (std::is_same_v<T, float>) {
      t.add_float_data(v);
    } else {
      t.add_int32_data(static_cast<std::int32_t>(v));
    }
  }
}

// Adds one thing the model leaves out to the "; "-separated list.
void add_note(std::string& notes, const std::string& note) {
  if (!notes.empty()) notes += "; ";
  notes += note;
}

void add_value_info(onnx::ValueInfoProto& info, const std::string& name, DType type,
                    const std::vector<std::int64_t>& shape) {
  info.set_name(name);
  auto& tensor = *info.mutable_type()->mutable_tensor_type();
  tensor.set_elem_type(onnx_type(type));
  for (const auto d : shape) tensor.mutable_shape()->add_dim()->set_dim_value(d);
}

// Scalar when per tensor, else one value per channel.
std::vector<std::int64_t> channel_dims(std::size_t count) {
  return count == 1 ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{static_cast<std::int64_t>(count)};
}

// The graph's one node, named "layer".
onnx::NodeProto& add_layer_node(onnx::GraphProto& graph, const char* graph_name, const char* op_type) {
  graph.set_name(graph_name);
  onnx::NodeProto& node = *graph.add_node();
  node.set_name("layer");
  node.set_op_type(op_type);
  return node;
}

struct NodeQuantization {
  DType a_type, out_type;
  std::int32_t a_zero_point;
  const std::vector<std::int32_t>& b_zero_points;
  const RequantParams& requant;
};

// The inputs of QLinearConv / QLinearMatMul (x, x_scale, x_zero_point, w, w_scale, w_zero_point,
// y_scale, y_zero_point) or of ConvInteger / MatMulInteger (x, w, x_zero_point, w_zero_point), with
// their initializers; returns what the ONNX operator cannot express of the requantization.
std::string add_quantization(onnx::GraphProto& graph, onnx::NodeProto& node, const NodeQuantization& q) {
  const bool requantized = q.out_type != DType::s32;
  const auto scalar_zero_point = [&](const std::string& name, DType type, std::int32_t value) {
    add_initializer(graph, name, onnx_type(type), {}, std::vector<std::int32_t>{value});
  };
  scalar_zero_point("x_zero_point", q.a_type, q.a_zero_point);
  add_initializer(graph, "w_zero_point", onnx::TensorProto_DataType_INT8, channel_dims(q.b_zero_points.size()),
                  q.b_zero_points);
  if (!requantized) {
    for (const char* input : {"x", "w", "x_zero_point", "w_zero_point"}) node.add_input(input);
    return "";
  }
  // ONNX's scale is float(x_scale * w_scale / y_scale): with x_scale = y_scale = 1 it is w_scale,
  // qtune's fp32 scale of the channel as float.
  add_initializer(graph, "x_scale", onnx::TensorProto_DataType_FLOAT, {}, std::vector<float>{1.0f});
  add_initializer(graph, "y_scale", onnx::TensorProto_DataType_FLOAT, {}, std::vector<float>{1.0f});
  add_initializer(graph, "w_scale", onnx::TensorProto_DataType_FLOAT, channel_dims(q.requant.scales_f32.size()),
                  q.requant.scales_f32);
  // onnxruntime computes QLinearConv / QLinearMatMul only with the output of the input's type:
  // a u8 layer with s8 output (or the reverse) is written with the input's type and the zero point
  // moved by 128, which gives the same values shifted by 128 (the clamp moves with them).
  const std::int32_t shift = q.out_type == q.a_type ? 0 : q.a_type == DType::u8 ? 128 : -128;
  scalar_zero_point("y_zero_point", q.a_type, q.requant.output_zero_point + shift);
  for (const char* input : {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"})
    node.add_input(input);
  std::string missing;
  if (q.requant.mode != RoundingMode::fp32) {
    add_note(missing, "requantized in fp32, round half to even (ONNX's), not the layer's " +
                          std::string(to_string(q.requant.mode)) + " rounding");
  }
  const std::int32_t type_min = q.out_type == DType::u8 ? 0 : -128, type_max = q.out_type == DType::u8 ? 255 : 127;
  if (q.requant.qmin != type_min || q.requant.qmax != type_max) {
    add_note(missing, "clamped to the output type's range, not the layer's [" + std::to_string(q.requant.qmin) + ", " +
                          std::to_string(q.requant.qmax) + "]");
  }
  return missing;
}

LayerModel finish(onnx::ModelProto& model, const std::string& op_type, std::vector<std::int64_t> input_shape,
                  DType output_type, std::string not_expressed) {
  model.set_ir_version(7);
  model.set_producer_name("qtune");
  auto& opset = *model.add_opset_import();
  opset.set_domain("");
  opset.set_version(kOpset);
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw std::invalid_argument("the layer's ONNX model could not be serialized");
  const onnx::NodeProto& node = model.graph().node(0);
  return {std::move(bytes), node.name(), op_type, node.input(0), std::move(input_shape), output_type,
          std::move(not_expressed)};
}

void check_size(std::size_t got, std::int64_t want, const char* what) {
  if (got != static_cast<std::size_t>(want))
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(got) + " values, the layer has " +
                                std::to_string(want));
}

}  // namespace

LayerModel conv2d_layer_model(const Conv2dProblem& p, const std::vector<std::int8_t>& weights,
                              const std::vector<std::int32_t>& bias) {
  p.validate();
  const std::int64_t per_group = p.in_c / p.groups;
  check_size(weights.size(), p.kernel_h * p.kernel_w * per_group * p.out_c, "weights");
  const bool requantized = p.out_type != DType::s32;
  onnx::ModelProto model;
  onnx::GraphProto& graph = *model.mutable_graph();
  onnx::NodeProto& node = add_layer_node(graph, "qtune_conv2d", requantized ? "QLinearConv" : "ConvInteger");
  std::string missing = add_quantization(graph, node, {p.a_type, p.out_type, p.a_zero_point, p.b_zero_points, p.requant});
  // HWIO -> OIHW (the inverse of the reader's).
  std::vector<std::int8_t> oihw(weights.size());
  for (std::int64_t o = 0; o < p.out_c; ++o)
    for (std::int64_t i = 0; i < per_group; ++i)
      for (std::int64_t y = 0; y < p.kernel_h; ++y)
        for (std::int64_t x = 0; x < p.kernel_w; ++x)
          oihw[static_cast<std::size_t>(((o * per_group + i) * p.kernel_h + y) * p.kernel_w + x)] =
              weights[static_cast<std::size_t>(((y * p.kernel_w + x) * per_group + i) * p.out_c + o)];
  add_initializer(graph, "w", onnx::TensorProto_DataType_INT8, {p.out_c, per_group, p.kernel_h, p.kernel_w}, oihw);
  if (p.has_bias && requantized) {
    check_size(bias.size(), p.out_c, "bias");
    add_initializer(graph, "bias", onnx::TensorProto_DataType_INT32, {p.out_c}, bias);
    node.add_input("bias");
  } else if (p.has_bias) {
    add_note(missing, "without the bias (ConvInteger has none)");
  }
  node.add_output(std::string("y"));
  const auto ints = [&](const char* name, std::vector<std::int64_t> values) {
    auto& a = *node.add_attribute();
    a.set_name(name);
    a.set_type(onnx::AttributeProto_AttributeType_INTS);
    for (const auto v : values) a.add_ints(v);
  };
  ints("kernel_shape", {p.kernel_h, p.kernel_w});
  ints("strides", {p.stride_h, p.stride_w});
  ints("dilations", {p.dilation_h, p.dilation_w});
  ints("pads", {p.pad_top, p.pad_left, p.pad_bottom, p.pad_right});
  auto& group = *node.add_attribute();
  group.set_name("group");
  group.set_type(onnx::AttributeProto_AttributeType_INT);
  group.set_i(p.groups);
  const std::vector<std::int64_t> input_shape{p.batch, p.in_c, p.in_h, p.in_w};
  add_value_info(*graph.add_input(), "x", p.a_type, input_shape);
  const DType output_type = requantized ? p.a_type : DType::s32;
  add_value_info(*graph.add_output(), "y", output_type, {p.batch, p.out_c, p.out_h(), p.out_w()});
  return finish(model, node.op_type(), input_shape, output_type, std::move(missing));
}

LayerModel gemm_layer_model(const GemmProblem& p, const std::vector<std::int8_t>& weights,
                            const std::vector<std::int32_t>& bias) {
  p.validate();
  check_size(weights.size(), p.k * p.n, "weights");
  if (p.has_bias) check_size(bias.size(), p.n, "bias");
  const bool requantized = p.out_type != DType::s32;
  onnx::ModelProto model;
  onnx::GraphProto& graph = *model.mutable_graph();
  onnx::NodeProto& node = add_layer_node(graph, "qtune_gemm", requantized ? "QLinearMatMul" : "MatMulInteger");
  std::string missing = add_quantization(graph, node, {p.a_type, p.out_type, p.a_zero_point, p.b_zero_points, p.requant});
  // Their B is K x N, like qtune's.
  add_initializer(graph, "w", onnx::TensorProto_DataType_INT8, {p.k, p.n}, weights);
  if (p.has_bias) add_note(missing, "without the bias (" + node.op_type() + " has none)");
  node.add_output(std::string("y"));
  const std::vector<std::int64_t> input_shape{p.m, p.k};
  add_value_info(*graph.add_input(), "x", p.a_type, input_shape);
  const DType output_type = requantized ? p.a_type : DType::s32;
  add_value_info(*graph.add_output(), "y", output_type, {p.m, p.n});
  return finish(model, node.op_type(), input_shape, output_type, std::move(missing));
}

}  // namespace qtune::onnx_import
