// A quantized ONNX model read as the layers qtune computes: every quantized convolution and
// matrix product with its shape, its real int8 weights, int32 bias and quantization parameters.
//
//   qtune::onnx_import::ImportOptions options;
//   options.input_shapes["input"] = {1, 3, 224, 224};   // only for dynamic dimensions
//   const auto model = qtune::onnx_import::read_model("net.onnx", options);
//   for (const auto& layer : model.layers) runtime.prepare_conv2d(layer.conv, ...);
//
// Forms read (see docs/onnx-models.md):
//   QOperator  QLinearConv, QLinearMatMul (requantized output), ConvInteger, MatMulInteger (int32)
//   QDQ        DequantizeLinear -> Conv | MatMul | Gemm [-> Relu | Clip] -> QuantizeLinear, the
//              weights (and an int32 bias) DequantizeLinear'd from initializers
// Per-tensor and per-output-channel scales and zero points, u8/s8 activations and weights (u8
// weights are held as s8: w - 128 with zero point - 128, which leaves every product unchanged),
// groups/depthwise, strides, dilations, explicit pads and auto_pad. A Relu or Clip between the
// layer and its QuantizeLinear narrows the clamp bounds. Requantization is ONNX's: the float scale
// x_scale * w_scale / y_scale computed in float, round half to even (qtune's fp32 rounding).
//
// Every other node is listed in Model::skipped with its name, op type and why. A model that cannot
// be read (not a protobuf, truncated, an opset the library does not know, an initializer whose
// size does not match its dims, a scale of 0 or NaN, a zero point whose type is not its tensor's)
// throws ModelError naming the node and the field; nothing is returned.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/workload.h"

namespace qtune::onnx_import {

struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ImportOptions {
  // Shapes of graph inputs, replacing what the model says (needed for dynamic dimensions).
  std::map<std::string, std::vector<std::int64_t>> input_shapes;
  // Graph inputs bound to constant values, as serialized onnx TensorProto files keyed by the
  // input's name: ONNX's node tests give weights as inputs, deployed models as initializers.
  std::map<std::string, std::string> constant_input_files;
};

// One convolution or matrix product of the model, ready for the runtime.
struct ModelLayer {
  std::string name;     // the node's name, else "<op_type>_<index>"
  std::string op_type;  // of the main node: QLinearConv, Conv (QDQ), ...
  std::string input, output;  // the activation tensor read and the tensor written
  std::vector<std::string> nodes;  // the names of the ONNX nodes the layer stands for (QDQ: with its DQ / Q)
  OpKind op = OpKind::conv2d;
  Conv2dProblem conv;   // op == conv2d: NHWC problem, weights HWIO
  GemmProblem gemm;     // op == gemm: A is M x K (leading dimensions of A folded into M), B is K x N
  // gemm whose B has leading (batch) dimensions: A and the output hold gemm_batches blocks of
  // M rows, block i multiplied by the i-th K x N matrix of `weights`.
  std::int64_t gemm_batches = 1;
  std::vector<std::int8_t> weights;  // HWIO (conv) or gemm_batches x K x N (gemm), s8
  std::vector<std::int32_t> bias;    // out_c / N values, or empty
  std::vector<std::int64_t> input_shape, output_shape;  // as ONNX has them (NCHW for conv)
  Workload workload;    // the tuning identity (runtime::workload_of of the problem, one thread)
};

struct SkippedNode {
  std::string name, op_type, reason;
};

struct Model {
  std::string path;
  std::string graph_name;
  std::int64_t opset = 0;
  std::vector<ModelLayer> layers;      // in graph order
  std::vector<SkippedNode> skipped;    // nodes qtune does not compute, in graph order
};

// The first and last opset (default domain) the reader accepts: from QLinearConv's opset 10 up to
// the newest the installed ONNX library knows (its shape inference needs to know the opset).
std::int64_t first_supported_opset();
std::int64_t last_supported_opset();

Model read_model(const std::string& path, const ImportOptions& options = {});

// "name=1,3,224,224" -> {"name", {1, 3, 224, 224}}; std::invalid_argument naming the problem.
std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& text);

}  // namespace qtune::onnx_import
