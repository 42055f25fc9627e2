// The kernels of ai.qtune.QConv and ai.qtune.QMatMul (node_format.h): made once per node when the
// session is created (the node's configuration chosen by qtune's runtime, the weights packed),
// run many times.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ort_api.h"
#include "qtune/runtime/prepared_ops.h"

namespace qtune::onnxruntime_ops::detail {

// QConv: NHWC in and out (the rewrite puts Transposes around it; onnxruntime cancels those that
// meet between two qtune nodes).
class ConvKernel {
 public:
  explicit ConvKernel(const Ort::ConstKernelInfo& info);
  OrtStatusPtr ComputeV2(OrtKernelContext* context);

 private:
  std::optional<runtime::PreparedConv2d> op_;
  std::vector<std::int64_t> input_shape_, output_shape_;
  ONNXTensorElementDataType input_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
};

// QMatMul: X [..., K] whose leading dimensions make the workload's M rows.
class MatMulKernel {
 public:
  explicit MatMulKernel(const Ort::ConstKernelInfo& info);
  OrtStatusPtr ComputeV2(OrtKernelContext* context);

 private:
  std::optional<runtime::PreparedGemm> op_;
  std::int64_t m_ = 0, k_ = 0, n_ = 0;
  ONNXTensorElementDataType input_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
};

ONNXTensorElementDataType onnx_type(DType type);

}  // namespace qtune::onnxruntime_ops::detail
