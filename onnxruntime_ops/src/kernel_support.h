// What the library's kernels share: reading a node's attributes and constant inputs with errors
// that name them, warnings, turning exceptions into onnxruntime statuses, and running qtune's
// parallel work on the session's intra-op threads.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ort_api.h"
#include "qtune/kernels/parallel.h"

namespace qtune::onnxruntime_ops::detail {

// "qtune-onnxruntime: warning: <message>" on stderr, once per distinct message in the process.
void warn(const std::string& message);

std::string shape_text(const std::vector<std::int64_t>& shape);

template <typename T>
T attribute(const Ort::ConstKernelInfo& info, const char* name) {
  try {
    return info.GetAttribute<T>(name);
  } catch (const Ort::Exception& e) {
    throw std::invalid_argument(std::string("attribute ") + name + ": " + e.what());
  }
}

template <typename T>
std::vector<T> attributes(const Ort::ConstKernelInfo& info, const char* name) {
  try {
    return info.GetAttributes<T>(name);
  } catch (const Ort::Exception& e) {
    throw std::invalid_argument(std::string("attribute ") + name + ": " + e.what());
  }
}

// An initializer input's values, checked against the element type and shape the node needs.
template <typename T>
std::vector<T> constant_input(const Ort::ConstKernelInfo& info, std::size_t index, const char* name,
                              ONNXTensorElementDataType type, const std::vector<std::int64_t>& shape) {
  int is_constant = 0;
  const Ort::ConstValue value = info.GetTensorConstantInput(index, &is_constant);
  if (!is_constant) throw std::invalid_argument(std::string("input ") + name + " is not an initializer");
  const auto tensor = value.GetTensorTypeAndShapeInfo();
  if (tensor.GetElementType() != type || tensor.GetShape() != shape)
    throw std::invalid_argument(std::string("input ") + name + " is " + shape_text(tensor.GetShape()) + " of type " +
                                std::to_string(tensor.GetElementType()) + ", the node needs " + shape_text(shape) +
                                " of type " + std::to_string(type));
  const T* data = value.GetTensorData<T>();
  return std::vector<T>(data, data + tensor.GetElementCount());
}

// A kernel built from the node, or the status of why not, naming the operator and the node.
template <typename Kernel>
OrtStatusPtr create_kernel(const OrtApi& api, const OrtKernelInfo* info, void** kernel, const char* op) {
  std::string node;
  try {
    const Ort::ConstKernelInfo kernel_info(info);
    node = kernel_info.GetNodeName();
    *kernel = new Kernel(kernel_info);
    return nullptr;
  } catch (const std::exception& e) {
    return api.CreateStatus(ORT_INVALID_ARGUMENT, ("ai.qtune." + std::string(op) + " node '" + node + "': " + e.what()).c_str());
  }
}

// f() as a Compute: an exception becomes the failed run's status.
template <typename F>
OrtStatusPtr run_guarded(const char* op, F&& f) {
  try {
    f();
    return nullptr;
  } catch (const std::exception& e) {
    return Ort::GetApi().CreateStatus(ORT_RUNTIME_EXCEPTION, ("ai.qtune." + std::string(op) + ": " + e.what()).c_str());
  }
}

// For one Compute: qtune's parallel work runs on the session's intra-op threads (a session of one
// thread runs it inline), not on qtune's own pool beside them.
class SessionThreads {
 public:
  explicit SessionThreads(const Ort::KernelContext& context);

 private:
  ParallelRunner runner_;
  ScopedParallelRunner scope_;
};

}  // namespace qtune::onnxruntime_ops::detail
