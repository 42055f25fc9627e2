// The kernel of ai.qtune.QAveragePool (node_format.h): com.microsoft.QLinearAveragePool with
// channels_last, computed by the executor's implementation of its arithmetic
// (executor/src/quantized_ops.h), its output rows split over the node's thread budget.
#pragma once

#include <cstdint>
#include <vector>

#include "ort_api.h"
#include "quantized_ops.h"

namespace qtune::onnxruntime_ops::detail {

class AveragePoolKernel {
 public:
  explicit AveragePoolKernel(const Ort::ConstKernelInfo& info);
  OrtStatusPtr ComputeV2(OrtKernelContext* context);

 private:
  std::vector<std::int64_t> output_shape(const std::vector<std::int64_t>& input) const;
  template <typename T>
  void pool(const T* in, executor::ImageShape input, T* out, executor::ImageShape output) const;

  executor::PoolWindow window_;
  bool ceil_mode_ = false;
  executor::Quantization qx_, qy_;
  std::int64_t x_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
  int threads_ = 1;
  executor::AveragePoolDivisors divisors_;
};

}  // namespace qtune::onnxruntime_ops::detail
