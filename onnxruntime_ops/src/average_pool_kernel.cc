#include "average_pool_kernel.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernel_support.h"
#include "qtune/kernels/parallel.h"
#include "qtune/onnxruntime_ops/node_format.h"

namespace qtune::onnxruntime_ops::detail {

AveragePoolKernel::AveragePoolKernel(const Ort::ConstKernelInfo& info) {
  const auto ints = [&](const char* name, std::size_t count) {
    std::vector<std::int64_t> v = attributes<std::int64_t>(info, name);
    if (v.size() != count)
      throw std::invalid_argument(std::string("attribute ") + name + " holds " + std::to_string(v.size()) + " values, not " +
                                  std::to_string(count));
    return v;
  };
  const auto kernel = ints("kernel_shape", 2), strides = ints("strides", 2), pads = ints("pads", 4);
  window_.kernel_h = kernel[0];
  window_.kernel_w = kernel[1];
  window_.stride_h = strides[0];
  window_.stride_w = strides[1];
  window_.pad_top = pads[0];
  window_.pad_left = pads[1];
  window_.pad_bottom = pads[2];
  window_.pad_right = pads[3];
  window_.count_include_pad = attribute<std::int64_t>(info, "count_include_pad") != 0;
  ceil_mode_ = attribute<std::int64_t>(info, "ceil_mode") != 0;
  for (const std::int64_t v : {window_.kernel_h, window_.kernel_w, window_.stride_h, window_.stride_w})
    if (v < 1) throw std::invalid_argument("kernel_shape and strides must be positive");
  for (const std::int64_t v : pads)
    if (v < 0) throw std::invalid_argument("pads must not be negative");
  x_type_ = attribute<std::int64_t>(info, "x_type");
  if (x_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 && x_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8)
    throw std::invalid_argument("attribute x_type " + std::to_string(x_type_) + " is not uint8 (2) or int8 (3)");
  const auto zero_point = [&](const char* name) {
    const std::int64_t zp = attribute<std::int64_t>(info, name);
    const bool u8 = x_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
    if (zp < (u8 ? 0 : -128) || zp > (u8 ? 255 : 127))
      throw std::invalid_argument(std::string("attribute ") + name + " " + std::to_string(zp) + " is outside x_type's range");
    return static_cast<std::int32_t>(zp);
  };
  qx_ = {attribute<float>(info, "x_scale"), zero_point("x_zero_point")};
  qy_ = {attribute<float>(info, "y_scale"), zero_point("y_zero_point")};
  if (!(qx_.scale > 0) || !(qy_.scale > 0)) throw std::invalid_argument("x_scale and y_scale must be positive");
  threads_ = static_cast<int>(attribute<std::int64_t>(info, "threads"));
  if (threads_ < 1) throw std::invalid_argument("attribute threads must be at least 1");
  divisors_ = executor::average_pool_divisors(window_, qx_, qy_);
}

std::vector<std::int64_t> AveragePoolKernel::output_shape(const std::vector<std::int64_t>& in) const {
  return {in[0], pool_output_size(in[1], window_.kernel_h, window_.stride_h, window_.pad_top, window_.pad_bottom, ceil_mode_),
          pool_output_size(in[2], window_.kernel_w, window_.stride_w, window_.pad_left, window_.pad_right, ceil_mode_), in[3]};
}

template <typename T>
void AveragePoolKernel::pool(const T* in, executor::ImageShape is, T* out, executor::ImageShape os) const {
  const std::int64_t rows = os.n * os.h;
  const std::int64_t tasks = std::min<std::int64_t>(rows, threads_);
  const std::size_t scratch = executor::average_pool_scratch_floats(is, window_);
  parallel_for(static_cast<std::size_t>(tasks), threads_, [&](std::size_t task, int) {
    std::vector<float> floats(scratch);
    const std::int64_t begin = rows * static_cast<std::int64_t>(task) / tasks;
    const std::int64_t end = rows * static_cast<std::int64_t>(task + 1) / tasks;
    executor::average_pool_nhwc<T>(in, is, out, os, window_, qx_, qy_, divisors_, floats.data(), begin, end);
  });
}

OrtStatusPtr AveragePoolKernel::ComputeV2(OrtKernelContext* context) {
  return run_guarded(kAveragePoolOp, [&] {
    const Ort::KernelContext ctx(context);
    const Ort::ConstValue x = ctx.GetInput(0);
    const auto info = x.GetTensorTypeAndShapeInfo();
    const std::vector<std::int64_t> in = info.GetShape();
    if (in.size() != 4 || info.GetElementType() != x_type_)
      throw std::invalid_argument("input X is " + shape_text(in) + " of type " + std::to_string(info.GetElementType()) +
                                  ", the node pools 4-D NHWC tensors of type " + std::to_string(x_type_));
    const std::vector<std::int64_t> out = output_shape(in);
    if (out[1] < 1 || out[2] < 1) throw std::invalid_argument("input X " + shape_text(in) + " is smaller than the window");
    Ort::UnownedValue y = ctx.GetOutput(0, out);
    const executor::ImageShape is{in[0], in[1], in[2], in[3]}, os{out[0], out[1], out[2], out[3]};
    const SessionThreads threads(ctx);
    if (x_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8)
      pool(x.GetTensorData<std::uint8_t>(), is, y.GetTensorMutableData<std::uint8_t>(), os);
    else
      pool(x.GetTensorData<std::int8_t>(), is, y.GetTensorMutableData<std::int8_t>(), os);
  });
}

}  // namespace qtune::onnxruntime_ops::detail
