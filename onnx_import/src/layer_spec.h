// A quantized layer found in the graph, before it is turned into a qtune problem: which tensors it
// reads and writes and its quantization parameters, whichever form (QOperator or QDQ) it had.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "graph_index.h"
#include "qtune/kernels/quant.h"
#include "tensor_values.h"

namespace qtune::onnx_import::detail {

// A node qtune could read but does not compute (a valid model; the node is listed as skipped).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LayerSpec {
  const onnx::NodeProto* node = nullptr;  // Conv / QLinearConv / MatMul / Gemm / ...
  Where where;
  bool conv = true;
  std::string x;              // activation tensor (quantized)
  DType x_type = DType::u8;
  float x_scale = 1;          // used when requantized
  std::int32_t x_zero_point = 0;
  const onnx::TensorProto* w = nullptr;
  const char* w_field = "w";  // the field naming the weights in errors ("w", "b", "weights")
  bool w_unsigned = false;    // uint8 weights (held as s8 shifted by 128)
  std::vector<float> w_scales;             // 1 or one per output channel (used when requantized)
  std::vector<std::int32_t> w_zero_points;  // 1 or one per output channel, as stored
  bool trans_b = false;       // Gemm transB: B is N x K
  std::vector<std::int32_t> bias;
  bool requantized = true;    // false: int32 output (ConvInteger, MatMulInteger)
  float y_scale = 1;
  std::int32_t y_zero_point = 0;
  DType y_type = DType::u8;
  std::int32_t qmin = 0, qmax = 255;  // y_type's range, narrowed by a fused Relu / Clip
  std::string y;              // the tensor the layer writes
  std::vector<const onnx::NodeProto*> absorbed;  // the nodes the layer stands for
  // A QDQ MatMul / Gemm whose output stays float (no QuantizeLinear after it): the int32 sums
  // times x_scale * w_scale, plus the float bias of an Add after a MatMul (`y` is then the Add's).
  bool float_output = false;
  std::vector<float> float_bias;
};

// The layer `node` is the main node of, nullopt when it is no such node (Unsupported when it is a
// conv / matmul qtune cannot compute, ModelError when the model is invalid).
std::optional<LayerSpec> match_layer(const onnx::NodeProto& node, const Where& where, const GraphIndex& graph,
                                     std::int64_t opset);

// The attribute of `node` named `name`, or null.
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);

}  // namespace qtune::onnx_import::detail
