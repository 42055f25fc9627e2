// One qtune layer written as a one-node quantized ONNX model, for timing the same layer in
// onnxruntime (`qtune bench`'s onnxruntime peer) and checking that it computes what qtune does.
//
// A requantized conv2d becomes QLinearConv, a requantized GEMM QLinearMatMul; an int32 output
// ConvInteger / MatMulInteger. The scales are written so that ONNX's float scale
// x_scale * w_scale / y_scale is exactly qtune's fp32 scale of each channel (x_scale = y_scale = 1,
// w_scale = the channel's scale as float); the zero points are the layer's (the output's moved by
// 128 when it is written in the input's type, see output_type). The activations are
// NCHW (conv) or M x K (GEMM), as ONNX has them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune::onnx_import {

struct LayerModel {
  std::string bytes;                     // the serialized ModelProto
  std::string node_name;                 // the one node's name
  std::string op_type;                   // QLinearConv, QLinearMatMul, ConvInteger or MatMulInteger
  std::string input_name;                // the activation input
  std::vector<std::int64_t> input_shape;  // NCHW or M x K
  // The output's type: the input's for a requantized layer (onnxruntime computes QLinearConv and
  // QLinearMatMul only so; a layer with the other 8-bit output type gets its values + 128, as
  // unsigned, or - 128, as signed), s32 for ConvInteger / MatMulInteger.
  DType output_type = DType::u8;
  // What the model leaves out of the problem ("" when it computes the layer exactly): the bias of
  // a layer whose ONNX operator has none, a clamp narrower than the output type, a rounding other
  // than ONNX's fp32 one.
  std::string not_expressed;
};

// `weights` HWIO (conv) or K x N (GEMM), `bias` out_c / N values or empty; std::invalid_argument
// when the problem is invalid or the sizes do not match it.
LayerModel conv2d_layer_model(const Conv2dProblem& p, const std::vector<std::int8_t>& weights,
                              const std::vector<std::int32_t>& bias);
LayerModel gemm_layer_model(const GemmProblem& p, const std::vector<std::int8_t>& weights,
                            const std::vector<std::int32_t>& bias);

}  // namespace qtune::onnx_import
