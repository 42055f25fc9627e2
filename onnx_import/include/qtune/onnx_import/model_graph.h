// A quantized ONNX model read whole, as the graph of operations qtune's executor runs
// (qtune/executor/model_executor.h): every node of the model belongs to exactly one operation, the
// quantization parameters are read and checked, the QDQ node units are fused as onnxruntime fuses
// them (so that the arithmetic chosen for each operation is the one onnxruntime computes), and
// every tensor's shape comes from qtune's own shape inference over the operations it supports
// (ONNX's inference stops at com.microsoft operators).
//
//   const auto graph = qtune::onnx_import::read_model_graph("net.onnx");
//   for (const auto& op : graph.ops) ...   // in an order that runs (producers first)
//
// Shapes and axes are ONNX's (NCHW for images); the executor chooses the memory layout. A node
// outside the supported set is a ModelError naming the node, its op type and the supported list,
// before anything runs. See docs/model-executor.md for each operation's arithmetic.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qtune/onnx_import/model.h"

namespace qtune::onnx_import {

enum class ElementType : unsigned char { u8, s8, s32, f32 };
std::string element_type_name(ElementType type);  // "uint8", "int8", "int32", "float" (ONNX's names)
std::size_t element_bytes(ElementType type);

struct GraphTensor {
  std::string name;
  ElementType type = ElementType::u8;
  std::vector<std::int64_t> shape;  // ONNX's dimensions
  std::int64_t elements() const;
};

// The affine quantization of a u8/s8 tensor: real = scale * (q - zero_point).
struct Quantization {
  float scale = 1;
  std::int32_t zero_point = 0;
  bool operator==(const Quantization&) const = default;
};

enum class GraphOpKind : unsigned char {
  layer,                // a convolution or matrix product (ModelLayer), requantized or int32
  float_layer,          // a matrix product whose output stays float: int32 sums * (x_scale * w_scale) [+ float bias]
  add,                  // QLinearAdd arithmetic (QOperator, or a fused QDQ Add), optional clamp
  concat,               // QLinearConcat arithmetic: per input a copy or a 256-entry table
  max_pool,             // integer maximum
  average_pool,         // QLinearAveragePool arithmetic (float, in onnxruntime's order)
  global_average_pool,  // QLinearGlobalAveragePool arithmetic (integer sum, one float multiply)
  reshape,              // the same elements in ONNX's order under another shape (Reshape, Flatten, Squeeze, Unsqueeze)
  transpose,            // ONNX Transpose
  requantize,           // u8/s8 -> u8/s8 through dequantize then quantize (a 256-entry table), optional clamp
  quantize,             // float -> u8/s8 (QuantizeLinear)
  dequantize,           // u8/s8/s32 -> float (DequantizeLinear)
  clamp,                // u8/s8 Relu / Clip on the integers (bounds in the tensor's integers)
  float_clamp,          // float Relu / Clip
  float_add,            // float Add (same shapes)
  softmax,              // float Softmax
  qlinear_softmax,      // com.microsoft QLinearSoftmax arithmetic (a fused DQ -> Softmax -> Q)
};
std::string to_string(GraphOpKind kind);

// A pooling window in ONNX's terms; the output size is the output tensor's shape.
struct PoolWindow {
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool count_include_pad = false;
};

struct GraphOp {
  GraphOpKind kind = GraphOpKind::layer;
  std::string name;                 // the main node's name, else "<op_type>_<index>"
  std::string op_type;              // the main node's op type
  std::vector<std::string> nodes;   // every ONNX node the operation stands for
  std::vector<std::string> inputs;  // activation tensors read (constants are folded into the parameters)
  std::string output;               // the tensor written
  std::vector<Quantization> input_quantization;  // one per input where the arithmetic needs it
  Quantization output_quantization;
  std::optional<ModelLayer> layer;  // layer, float_layer
  std::vector<float> float_bias;    // float_layer: N values or empty
  std::vector<float> float_scales;  // float_layer: x_scale * w_scale per output channel (1 or N)
  PoolWindow pool;                  // pools
  std::int32_t clamp_min = 0, clamp_max = 255;  // add, requantize, clamp: in the output's integers
  float float_min = 0, float_max = 0;          // float_clamp
  std::int64_t axis = 0;            // concat (non-negative), softmax (non-negative)
  std::int64_t softmax_opset = 13;  // softmax, qlinear_softmax: < 13 reduces over every axis from `axis` on
  std::vector<std::int64_t> permutation;  // transpose
};

struct ModelGraph {
  std::string path, graph_name;
  std::int64_t opset = 0;
  std::map<std::string, GraphTensor> tensors;  // every activation tensor, graph inputs and outputs included
  std::vector<std::string> inputs, outputs;    // the graph's (initializers excluded), in the model's order
  std::vector<GraphOp> ops;                    // producers before consumers

  const GraphTensor& tensor(const std::string& name) const;  // std::out_of_range naming it
};

// The op types the graph reader accepts ("QLinearConv", "com.microsoft.QLinearAdd", ...), for
// error messages and docs.
const std::vector<std::string>& supported_op_types();

// Reads and checks the whole model (ModelError naming the file, the node and the field).
// `options.input_shapes` fixes dynamic dimensions; constant_input_files is honoured as in read_model.
ModelGraph read_model_graph(const std::string& path, const ImportOptions& options = {});

}  // namespace qtune::onnx_import
