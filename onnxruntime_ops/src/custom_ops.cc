// libqtune_onnxruntime.so: qtune's custom operators for onnxruntime (the C API's
// RegisterCustomOps), computing the nodes `qtune export-onnx` writes (node_format.h;
// docs/onnxruntime-inside.md). Each operator here says its inputs, outputs and how its output's
// type and shape follow from its attributes; the kernels are in layer_kernels.h and
// average_pool_kernel.h. Errors in a node fail the session's creation with the node's name.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "average_pool_kernel.h"
#include "kernel_support.h"
#include "layer_kernels.h"
#include "ort_api.h"
#include "qtune/onnxruntime_ops/node_format.h"
#include "qtune/search_space/workload.h"

namespace {

namespace ops = qtune::onnxruntime_ops;
using Shape = Ort::ShapeInferContext::Shape;

// QConv and QMatMul: X, W, B (optional) -> Y, X and Y of the 8-bit types the workload key names.
template <typename Op, typename Kernel>
struct LayerOp : Ort::CustomOpBase<Op, Kernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi& api, const OrtKernelInfo* info, void** kernel) const {
    return ops::detail::create_kernel<Kernel>(api, info, kernel, Op::kName);
  }
  const char* GetName() const { return Op::kName; }
  std::size_t GetInputTypeCount() const { return 3; }
  ONNXTensorElementDataType GetInputType(std::size_t index) const {
    if (index == 0) return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    return index == 1 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 : ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  }
  OrtCustomOpInputOutputCharacteristic GetInputCharacteristic(std::size_t index) const {
    return index == 2 ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
  }
  std::size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(std::size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED; }

  LayerOp() { OrtCustomOp::InferOutputShapeFn = &infer_output; }

  // The output's type and shape from the workload key (onnxruntime's graph needs the type). On the
  // C API: the C++ API's ShapeInferContext::GetAttrString (1.21 headers) reads past the string.
  static OrtStatusPtr ORT_API_CALL infer_output(const OrtCustomOp*, OrtShapeInferContext* context) {
    const OrtApi& api = Ort::GetApi();
    try {
      const qtune::Workload w = qtune::Workload::parse_key(string_attribute(api, context, "workload"));
      Ort::ShapeInferContext shapes(&api, context);
      std::vector<std::int64_t> input;
      for (const auto& d : shapes.GetInputShape(0)) input.push_back(d.IsInt() ? d.AsInt() : -1);
      Shape output;
      for (const std::int64_t d : Op::output_shape(w, input)) output.emplace_back(d);
      Ort::ThrowOnError(shapes.SetOutputShape(0, output, ops::detail::onnx_type(w.quant.out_type)));
      return nullptr;
    } catch (const std::exception& e) {
      return api.CreateStatus(ORT_INVALID_ARGUMENT, (std::string("ai.qtune.") + Op::kName + ": " + e.what()).c_str());
    }
  }

  // A string attribute, read with its length.
  static std::string string_attribute(const OrtApi& api, OrtShapeInferContext* context, const char* name) {
    const OrtOpAttr* attribute = nullptr;
    Ort::ThrowOnError(api.ShapeInferContext_GetAttribute(context, name, &attribute));
    char probe = 0;
    std::size_t size = 0;
    if (OrtStatus* too_small = api.ReadOpAttr(attribute, ORT_OP_ATTR_STRING, &probe, sizeof probe, &size)) {
      api.ReleaseStatus(too_small);
    } else {
      return std::string(&probe, size);
    }
    // Room for a NUL past the size it reported: versions differ in whether the size counts it.
    std::string value(size + 1, '\0');
    Ort::ThrowOnError(api.ReadOpAttr(attribute, ORT_OP_ATTR_STRING, value.data(), value.size(), &size));
    value.resize(std::min(size, value.size()));
    while (!value.empty() && value.back() == '\0') value.pop_back();
    return value;
  }
};

struct ConvOp : LayerOp<ConvOp, ops::detail::ConvKernel> {
  static constexpr const char* kName = ops::kConvOp;
  // NHWC.
  static std::vector<std::int64_t> output_shape(const qtune::Workload& w, const std::vector<std::int64_t>&) {
    const qtune::Conv2dProblem p = w.conv2d_problem();
    return {p.batch, p.out_h(), p.out_w(), p.out_c};
  }
};

struct MatMulOp : LayerOp<MatMulOp, ops::detail::MatMulKernel> {
  static constexpr const char* kName = ops::kMatMulOp;
  // The input's shape (unknown dimensions -1) with its last dimension N.
  static std::vector<std::int64_t> output_shape(const qtune::Workload& w, std::vector<std::int64_t> input) {
    if (input.empty()) input = {w.m, w.k};
    input.back() = w.n;
    return input;
  }
};

// QAveragePool: X -> Y of X's type (x_type), NHWC.
struct AveragePoolOp : Ort::CustomOpBase<AveragePoolOp, ops::detail::AveragePoolKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi& api, const OrtKernelInfo* info, void** kernel) const {
    return ops::detail::create_kernel<ops::detail::AveragePoolKernel>(api, info, kernel, ops::kAveragePoolOp);
  }
  const char* GetName() const { return ops::kAveragePoolOp; }
  std::size_t GetInputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetInputType(std::size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED; }
  std::size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(std::size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED; }

  static Ort::Status InferOutputShape(Ort::ShapeInferContext& context) {
    try {
      Shape out = context.GetInputShape(0);
      if (out.size() != 4) return Ort::Status("ai.qtune.QAveragePool: X must be 4-D (NHWC)", ORT_INVALID_ARGUMENT);
      const auto kernel = context.GetAttrInts("kernel_shape"), strides = context.GetAttrInts("strides"),
                 pads = context.GetAttrInts("pads");
      if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4)
        return Ort::Status("ai.qtune.QAveragePool: kernel_shape, strides and pads must hold 2, 2 and 4 values",
                           ORT_INVALID_ARGUMENT);
      const bool ceil_mode = context.GetAttrInt("ceil_mode") != 0;
      for (std::size_t axis = 0; axis < 2; ++axis) {
        auto& d = out[axis + 1];
        if (d.IsInt())
          d = ops::pool_output_size(d.AsInt(), kernel[axis], strides[axis], pads[axis], pads[axis + 2], ceil_mode);
      }
      return context.SetOutputShape(0, out, static_cast<ONNXTensorElementDataType>(context.GetAttrInt("x_type")));
    } catch (const std::exception& e) {
      return Ort::Status(e.what(), ORT_INVALID_ARGUMENT);
    }
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options,
                                                                                          const OrtApiBase* api_base) {
  const OrtApi* api = api_base->GetApi(ORT_API_VERSION);
  if (api == nullptr) return nullptr;  // an onnxruntime older than these headers: it cannot report a status of ours
  Ort::InitApi(api);
  // One domain for the process: onnxruntime keeps a pointer to it for every session registered.
  static const ConvOp conv;
  static const MatMulOp matmul;
  static const AveragePoolOp average_pool;
  static std::once_flag once;
  static OrtCustomOpDomain* domain = nullptr;
  static std::string failure;  // why the domain could not be made, for every session that asks
  std::call_once(once, [&] {
    const auto ok = [&](OrtStatus* status) {
      if (status == nullptr) return true;
      failure = api->GetErrorMessage(status);
      api->ReleaseStatus(status);
      return false;
    };
    OrtCustomOpDomain* made = nullptr;
    if (!ok(api->CreateCustomOpDomain(ops::kDomain, &made))) return;
    for (const OrtCustomOp* op : {static_cast<const OrtCustomOp*>(&conv), static_cast<const OrtCustomOp*>(&matmul),
                                  static_cast<const OrtCustomOp*>(&average_pool)})
      if (!ok(api->CustomOpDomain_Add(made, op))) return;
    domain = made;
  });
  if (domain == nullptr)
    return api->CreateStatus(ORT_FAIL, ("qtune-onnxruntime: the custom-op domain ai.qtune could not be made: " + failure).c_str());
  return api->AddCustomOpDomain(options, domain);
}
