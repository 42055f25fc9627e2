// The whole-model half of the C API (qtune/qtune.h, "whole models"): an opaque qtune_model over a
// Runtime (the tuning data) and the ModelExecutor compiled with it. Every entry point catches
// everything and reports through the runtime's C status mapping (qtune/runtime/c_api_support.h),
// so qtune_last_error() gives the message whichever half of the API failed last.
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/executor/model_executor.h"
#include "qtune/qtune.h"
#include "qtune/runtime/c_api_support.h"
#include "qtune/runtime/runtime.h"

#if !defined(QTUNE_HAVE_MODEL_API)
#error "qtune_executor must define QTUNE_HAVE_MODEL_API (see the top-level CMakeLists.txt)"
#endif

struct qtune_model {
  qtune::runtime::Runtime runtime;  // before the executor: it is compiled with it
  std::optional<qtune::executor::ModelExecutor> executor;
  mutable std::mutex run_mutex;  // one arena per executor: runs on one model are serialized
};

namespace {

using qtune::runtime::c_api::FileProblem;
using qtune::runtime::c_api::guarded;
using qtune::runtime::c_api::ModelProblem;
using qtune::runtime::c_api::require;

qtune_dtype model_api_dtype(qtune::onnx_import::ElementType type) {
  switch (type) {
    case qtune::onnx_import::ElementType::u8: return QTUNE_DTYPE_U8;
    case qtune::onnx_import::ElementType::s8: return QTUNE_DTYPE_S8;
    case qtune::onnx_import::ElementType::s32: return QTUNE_DTYPE_S32;
    case qtune::onnx_import::ElementType::f32: return QTUNE_DTYPE_F32;
  }
  throw std::logic_error("an element type the C API does not know");
}

const qtune::executor::ModelExecutor& model_api_executor(const qtune_model* model) {
  require(model, "model");
  return *model->executor;
}

void model_api_info(const std::vector<qtune::executor::TensorInfo>& tensors, const char* what, size_t index,
                    qtune_tensor_info* info) {
  require(info, "info");
  if (index >= tensors.size())
    throw std::out_of_range(std::string(what) + " index " + std::to_string(index) + " is past the model's " +
                            std::to_string(tensors.size()) + " " + what + "s");
  const qtune::executor::TensorInfo& t = tensors[index];
  info->name = t.name.c_str();
  info->type = model_api_dtype(t.type);
  info->rank = t.shape.size();
  info->dims = t.shape.empty() ? nullptr : t.shape.data();
  info->bytes = t.bytes();
}

// Null buffer pointers named with the tensor they were meant for.
void model_api_require_buffers(const void* const* buffers, const std::vector<qtune::executor::TensorInfo>& tensors,
                               const char* array) {
  require(buffers, array);
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (buffers[i] == nullptr)
      throw qtune::runtime::c_api::NullArgument(std::string(array) + "[" + std::to_string(i) + "] ('" + tensors[i].name +
                                                "') must not be NULL");
}

}  // namespace

extern "C" {

qtune_status qtune_model_load(const char* model_path, const char* tuning_path, int threads, qtune_model** out) {
  return guarded("qtune_model_load", [&] {
    require(out, "out");
    *out = nullptr;
    require(model_path, "model_path");
    if (threads < 1) throw std::invalid_argument("threads must be >= 1, got " + std::to_string(threads));
    // A missing or unreadable model is a file problem, as a missing tuning file is; what the
    // reader then rejects is the model's.
    if (!std::ifstream(model_path, std::ios::binary)) throw FileProblem(std::string(model_path) + ": cannot open the model");
    auto model = std::make_unique<qtune_model>();
    if (tuning_path != nullptr) {
      try {
        model->runtime = qtune::runtime::Runtime::from_file(tuning_path);
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& e) {
        throw FileProblem(e.what());  // missing, unreadable, damaged, bad lines, bad keys
      }
    }
    qtune::executor::ExecutorOptions options;
    options.threads = threads;
    try {
      model->executor.emplace(qtune::executor::ModelExecutor::load(model_path, model->runtime, std::move(options)));
    } catch (const qtune::onnx_import::ModelError& e) {
      throw ModelProblem(e.what());
    }
    *out = model.release();
  });
}

void qtune_model_destroy(qtune_model* model) { delete model; }

size_t qtune_model_input_count(const qtune_model* model) {
  return model == nullptr ? 0 : model->executor->inputs().size();
}

size_t qtune_model_output_count(const qtune_model* model) {
  return model == nullptr ? 0 : model->executor->outputs().size();
}

qtune_status qtune_model_input_info(const qtune_model* model, size_t index, qtune_tensor_info* info) {
  return guarded("qtune_model_input_info",
                 [&] { model_api_info(model_api_executor(model).inputs(), "input", index, info); });
}

qtune_status qtune_model_output_info(const qtune_model* model, size_t index, qtune_tensor_info* info) {
  return guarded("qtune_model_output_info",
                 [&] { model_api_info(model_api_executor(model).outputs(), "output", index, info); });
}

qtune_status qtune_model_run(const qtune_model* model, const void* const* inputs, void* const* outputs) {
  return guarded("qtune_model_run", [&] {
    const qtune::executor::ModelExecutor& executor = model_api_executor(model);
    model_api_require_buffers(inputs, executor.inputs(), "inputs");
    model_api_require_buffers(outputs, executor.outputs(), "outputs");
    std::lock_guard<std::mutex> lock(model->run_mutex);
    executor.run(inputs, outputs);
  });
}

size_t qtune_model_arena_bytes(const qtune_model* model) {
  return model == nullptr ? 0 : model->executor->arena().arena_bytes;
}

size_t qtune_model_step_count(const qtune_model* model) {
  return model == nullptr ? 0 : model->executor->steps().size();
}

qtune_status qtune_model_step_info(const qtune_model* model, size_t index, const char** name, const char** op_type,
                                   const char** selection) {
  return guarded("qtune_model_step_info", [&] {
    const std::vector<qtune::executor::StepInfo>& steps = model_api_executor(model).steps();
    if (index >= steps.size())
      throw std::out_of_range("step index " + std::to_string(index) + " is past the model's " + std::to_string(steps.size()) +
                              " steps");
    const qtune::executor::StepInfo& step = steps[index];
    if (name != nullptr) *name = step.name.c_str();
    if (op_type != nullptr) *op_type = step.op_type.c_str();
    if (selection != nullptr) *selection = step.selection.c_str();
  });
}

}  // extern "C"
