#include "layer_kernels.h"

#include <stdexcept>
#include <string>

#include "kernel_support.h"
#include "qtune/onnxruntime_ops/node_format.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/target.h"

namespace qtune::onnxruntime_ops::detail {
namespace {

NodeAttributes read_attributes(const Ort::ConstKernelInfo& info) {
  NodeAttributes a;
  a.workload = attribute<std::string>(info, "workload");
  a.config = attribute<std::string>(info, "config");
  a.x_zero_point = attribute<std::int64_t>(info, "x_zero_point");
  a.w_zero_points = attributes<std::int64_t>(info, "w_zero_points");
  a.scales = attributes<float>(info, "scales");
  a.y_zero_point = attribute<std::int64_t>(info, "y_zero_point");
  a.qmin = attribute<std::int64_t>(info, "qmin");
  a.qmax = attribute<std::int64_t>(info, "qmax");
  return a;
}

// The runtime that runs the node's own configuration; the default one where the key cannot be
// read (the runtime itself warns about a configuration this CPU or build cannot run).
runtime::Runtime node_runtime(const std::string& node, const NodeAttributes& a) {
  runtime::RuntimeOptions options;
  options.warning_sink = [node](const std::string& message) { warn("node " + node + ": " + message); };
  if (a.config.empty()) return runtime::Runtime(options);
  try {
    return runtime::Runtime::from_entries({{a.workload, current_target().key(), a.config, 0}}, options);
  } catch (const std::invalid_argument& e) {
    warn("node " + node + ": configuration '" + a.config + "' is not usable (" + e.what() + "); the default runs");
    return runtime::Runtime(options);
  }
}

// The bias input, when the node has one.
std::vector<std::int32_t> bias_of(const Ort::ConstKernelInfo& info, std::int64_t channels) {
  if (info.GetInputCount() < 3) return {};
  return constant_input<std::int32_t>(info, 2, "B", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, {channels});
}

int threads_of(const NodeAttributes& a) { return Workload::parse_key(a.workload).threads; }

}  // namespace

ONNXTensorElementDataType onnx_type(DType type) {
  return type == DType::u8 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 : ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
}

ConvKernel::ConvKernel(const Ort::ConstKernelInfo& info) {
  const NodeAttributes a = read_attributes(info);
  const Conv2dProblem p = conv2d_problem(a, info.GetInputCount() > 2);
  const auto w = constant_input<std::int8_t>(info, 1, "W", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, conv2d_weight_shape(p));
  const auto b = bias_of(info, p.out_c);
  op_.emplace(node_runtime(info.GetNodeName(), a)
                  .prepare_conv2d(p, w.data(), b.empty() ? nullptr : b.data(), threads_of(a), runtime::LibraryUse::kernels_only));
  input_shape_ = {p.batch, p.in_h, p.in_w, p.in_c};
  output_shape_ = {p.batch, p.out_h(), p.out_w(), p.out_c};
  input_type_ = onnx_type(p.a_type);
}

OrtStatusPtr ConvKernel::ComputeV2(OrtKernelContext* context) {
  return run_guarded(kConvOp, [&] {
    const Ort::KernelContext ctx(context);
    const Ort::ConstValue x = ctx.GetInput(0);
    const auto info = x.GetTensorTypeAndShapeInfo();
    if (info.GetShape() != input_shape_ || info.GetElementType() != input_type_)
      throw std::invalid_argument("input X is " + shape_text(info.GetShape()) + " of type " +
                                  std::to_string(info.GetElementType()) + ", the node computes " + shape_text(input_shape_) +
                                  " (NHWC) of type " + std::to_string(input_type_));
    Ort::UnownedValue y = ctx.GetOutput(0, output_shape_);
    const SessionThreads threads(ctx);
    op_->run(x.GetTensorRawData(), y.GetTensorMutableRawData());
  });
}

MatMulKernel::MatMulKernel(const Ort::ConstKernelInfo& info) {
  const NodeAttributes a = read_attributes(info);
  const GemmProblem p = gemm_problem(a, info.GetInputCount() > 2);
  const auto w = constant_input<std::int8_t>(info, 1, "W", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, {p.k, p.n});
  const auto b = bias_of(info, p.n);
  op_.emplace(node_runtime(info.GetNodeName(), a)
                  .prepare_gemm(p, w.data(), static_cast<std::size_t>(p.n), b.empty() ? nullptr : b.data(), threads_of(a),
                                runtime::LibraryUse::kernels_only));
  m_ = p.m;
  k_ = p.k;
  n_ = p.n;
  input_type_ = onnx_type(p.a_type);
}

OrtStatusPtr MatMulKernel::ComputeV2(OrtKernelContext* context) {
  return run_guarded(kMatMulOp, [&] {
    const Ort::KernelContext ctx(context);
    const Ort::ConstValue x = ctx.GetInput(0);
    const auto info = x.GetTensorTypeAndShapeInfo();
    std::vector<std::int64_t> shape = info.GetShape();
    if (shape.empty() || shape.back() != k_ || static_cast<std::int64_t>(info.GetElementCount()) != m_ * k_ ||
        info.GetElementType() != input_type_)
      throw std::invalid_argument("input X is " + shape_text(shape) + " of type " + std::to_string(info.GetElementType()) +
                                  ", the node computes " + std::to_string(m_) + " rows of " + std::to_string(k_) +
                                  " of type " + std::to_string(input_type_));
    shape.back() = n_;
    Ort::UnownedValue y = ctx.GetOutput(0, shape);
    const SessionThreads threads(ctx);
    op_->run(x.GetTensorRawData(), static_cast<std::size_t>(k_), y.GetTensorMutableRawData(), static_cast<std::size_t>(n_));
  });
}

}  // namespace qtune::onnxruntime_ops::detail
