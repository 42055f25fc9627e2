#include "kernel_support.h"

#include <iostream>
#include <mutex>
#include <set>

namespace qtune::onnxruntime_ops::detail {

void warn(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  const std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(message).second) std::cerr << "qtune-onnxruntime: warning: " << message << "\n";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

SessionThreads::SessionThreads(const Ort::KernelContext& context)
    : runner_([&context](std::size_t tasks, int threads, const std::function<void(std::size_t)>& task) {
        context.ParallelFor(
            [](void* data, std::size_t i) { (*static_cast<const std::function<void(std::size_t)>*>(data))(i); }, tasks,
            static_cast<std::size_t>(threads), const_cast<std::function<void(std::size_t)>*>(&task));
      }),
      scope_(runner_) {}

}  // namespace qtune::onnxruntime_ops::detail
