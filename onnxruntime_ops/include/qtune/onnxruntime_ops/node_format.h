// qtune's nodes in an ONNX model that onnxruntime runs with libqtune_onnxruntime.so registered
// (docs/onnxruntime-inside.md). `qtune export-onnx` writes them; the library's kernels read them.
//
//   ai.qtune.QConv    X (uint8 / int8, NCHW), W (int8, [KH, KW, C / group, OC]), B (int32 [OC], optional) -> Y (NCHW)
//   ai.qtune.QMatMul  X (uint8 / int8, [..., K]), W (int8, [K, N]), B (int32 [N], optional) -> Y ([..., N])
//   ai.qtune.QAveragePool  X (uint8 / int8, NHWC) -> Y (NHWC): com.microsoft.QLinearAveragePool in
//                     the same arithmetic, computed by qtune's executor's pool (see below)
//
// A node says everything its kernel needs, so a rewritten model needs no tuning database:
//   workload       the layer's workload key (shape, quantization kind, thread budget)
//   config         the configuration key it runs ("" for the default)
//   x_zero_point   the activation's zero point
//   w_zero_points  the weights' zero points, one or one per output channel (int8 weights; uint8
//                  weights are held shifted by -128, their zero points too)
//   scales         x_scale * w_scale / y_scale as ONNX computes it in float, one or per channel
//   y_zero_point, qmin, qmax   the output's zero point and clamp (a fused Relu / Clip narrows it)
// Only ONNX's rounding (fp32: the float scale, round half to even) is written: it is what every
// imported layer uses, and float attributes hold its scales exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/workload.h"

namespace qtune::onnxruntime_ops {

inline constexpr char kDomain[] = "ai.qtune";
inline constexpr int kDomainVersion = 1;
inline constexpr char kConvOp[] = "QConv";
inline constexpr char kMatMulOp[] = "QMatMul";
inline constexpr char kAveragePoolOp[] = "QAveragePool";

// QAveragePool's attributes: kernel_shape, strides, pads (top, left, bottom, right), ceil_mode and
// count_include_pad as ONNX's AveragePool has them; x_scale, x_zero_point, y_scale, y_zero_point;
// x_type, X's and Y's element type (ONNX's: 2 uint8, 3 int8); threads, the budget its rows are
// split for. Its output size along one axis, as onnxruntime
// computes a pool's (a ceil_mode window that would start in the end padding is dropped):
std::int64_t pool_output_size(std::int64_t input, std::int64_t kernel, std::int64_t stride, std::int64_t pad_begin,
                              std::int64_t pad_end, bool ceil_mode);

struct NodeAttributes {
  std::string workload;
  std::string config;
  std::int64_t x_zero_point = 0;
  std::vector<std::int64_t> w_zero_points{0};
  std::vector<float> scales;
  std::int64_t y_zero_point = 0, qmin = 0, qmax = 255;
};

// The attributes of a node computing `problem` with `config_key`; std::invalid_argument when the
// problem is invalid or its rounding is not ONNX's.
NodeAttributes node_attributes(const Conv2dProblem& problem, int threads, const std::string& config_key);
NodeAttributes node_attributes(const GemmProblem& problem, int threads, const std::string& config_key);

// The problem a node computes: the shape from its workload key, the values from the other
// attributes. std::invalid_argument naming the attribute when the key does not parse, is not of
// the operator, or the values do not make the quantization kind the key names.
Conv2dProblem conv2d_problem(const NodeAttributes& attributes, bool has_bias);
GemmProblem gemm_problem(const NodeAttributes& attributes, bool has_bias);

// The tensors' shapes a node of that problem takes and gives.
std::vector<std::int64_t> conv2d_input_shape(const Conv2dProblem& problem);   // NCHW
std::vector<std::int64_t> conv2d_output_shape(const Conv2dProblem& problem);  // NCHW
std::vector<std::int64_t> conv2d_weight_shape(const Conv2dProblem& problem);  // KH, KW, C / group, OC

}  // namespace qtune::onnxruntime_ops
