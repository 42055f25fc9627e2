// The C API (qtune/qtune.h): opaque handles over Runtime and the prepared operators. Every entry
// point catches everything, maps it to a status code and keeps the message per thread.
#include "qtune/qtune.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "c_descriptors.h"
#include "qtune/kernels/build_info.h"
#include "qtune/runtime/c_api_support.h"
#include "qtune/runtime/runtime.h"

using qtune::runtime::FallbackEntry;
using qtune::runtime::PreparedConv2d;
using qtune::runtime::PreparedGemm;
using qtune::runtime::Runtime;
using qtune::runtime::RuntimeOptions;
using qtune::runtime::Selection;

struct qtune_runtime {
  explicit qtune_runtime(Runtime r) : runtime(std::move(r)) {}
  Runtime runtime;
  std::mutex mutex;                   // guards fallbacks
  std::deque<FallbackEntry> fallbacks;  // copies handed out to C; append-only, addresses stable
};

struct qtune_op {
  std::variant<PreparedGemm, PreparedConv2d> prepared;
  const Selection& selection() const {
    return std::visit([](const auto& p) -> const Selection& { return p.selection(); }, prepared);
  }
};

namespace qtune::runtime::c_api {
namespace {
thread_local std::string last_error;
}  // namespace

void set_last_error(std::string message) { last_error = std::move(message); }

qtune_status status_of_current_exception(const char* function) noexcept {
  // Building the message may itself run out of memory: then the status alone is reported.
  const auto report = [function](qtune_status status, const char* prefix, const char* what) noexcept {
    try {
      last_error = std::string(function) + ": " + prefix + what;
    } catch (...) {
      last_error.clear();
    }
    return status;
  };
  try {
    throw;
  } catch (const NullArgument& e) {
    return report(QTUNE_ERROR_NULL_ARGUMENT, "", e.what());
  } catch (const WrongOperator& e) {
    return report(QTUNE_ERROR_WRONG_OPERATOR, "", e.what());
  } catch (const FileProblem& e) {
    return report(QTUNE_ERROR_FILE, "", e.what());
  } catch (const ModelProblem& e) {
    return report(QTUNE_ERROR_MODEL, "", e.what());
  } catch (const std::out_of_range& e) {
    return report(QTUNE_ERROR_OUT_OF_RANGE, "", e.what());
  } catch (const std::invalid_argument& e) {
    return report(QTUNE_ERROR_INVALID_ARGUMENT, "", e.what());
  } catch (const std::bad_alloc&) {
    return report(QTUNE_ERROR_OUT_OF_MEMORY, "", "out of memory");
  } catch (const std::exception& e) {
    return report(QTUNE_ERROR_INTERNAL, "internal error: ", e.what());
  } catch (...) {
    return report(QTUNE_ERROR_INTERNAL, "internal error: ", "unknown exception");
  }
}

}  // namespace qtune::runtime::c_api

namespace {

using qtune::runtime::c_api::FileProblem;
using qtune::runtime::c_api::guarded;
using qtune::runtime::c_api::NullArgument;
using qtune::runtime::c_api::require;
using qtune::runtime::c_api::WrongOperator;

qtune_status create_from_file(const char* function, const char* path, const char* target_key, qtune_runtime** out,
                              bool target_required) {
  return guarded(function, [&] {
    require(out, "out");
    *out = nullptr;
    require(path, "path");
    if (target_required) require(target_key, "target_key");
    RuntimeOptions options;
    if (target_key != nullptr) options.target_key = target_key;
    try {
      *out = new qtune_runtime(Runtime::from_file(path, std::move(options)));
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      // Whatever the loader rejects (missing, unreadable, damaged, bad lines, bad keys) is the file's fault.
      throw FileProblem(e.what());
    }
  });
}

const PreparedGemm& gemm_of(const qtune_op* op) {
  require(op, "op");
  const auto* gemm = std::get_if<PreparedGemm>(&op->prepared);
  if (gemm == nullptr) throw WrongOperator("op is a conv2d operator, not a gemm");
  return *gemm;
}

const PreparedConv2d& conv2d_of(const qtune_op* op) {
  require(op, "op");
  const auto* conv = std::get_if<PreparedConv2d>(&op->prepared);
  if (conv == nullptr) throw WrongOperator("op is a gemm operator, not a conv2d");
  return *conv;
}

}  // namespace

extern "C" {

const char* qtune_last_error(void) { return qtune::runtime::c_api::last_error.c_str(); }

const char* qtune_status_string(qtune_status status) {
  // Any int may arrive from C; read it as the underlying integer (an out-of-range enum load is UB).
  std::underlying_type_t<qtune_status> raw;
  std::memcpy(&raw, &status, sizeof raw);
  switch (raw) {
    case QTUNE_OK: return "ok";
    case QTUNE_ERROR_NULL_ARGUMENT: return "null argument";
    case QTUNE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case QTUNE_ERROR_FILE: return "bad file";
    case QTUNE_ERROR_WRONG_OPERATOR: return "wrong operator";
    case QTUNE_ERROR_OUT_OF_RANGE: return "out of range";
    case QTUNE_ERROR_OUT_OF_MEMORY: return "out of memory";
    case QTUNE_ERROR_INTERNAL: return "internal error";
    case QTUNE_ERROR_MODEL: return "bad model";
  }
  return "unknown status";
}

const char* qtune_version_string(void) {
  static const std::string version = qtune::version();
  return version.c_str();
}

qtune_status qtune_runtime_create(qtune_runtime** out) {
  return guarded("qtune_runtime_create", [&] {
    require(out, "out");
    *out = nullptr;
    *out = new qtune_runtime(Runtime());
  });
}

qtune_status qtune_runtime_create_from_file(const char* path, qtune_runtime** out) {
  return create_from_file("qtune_runtime_create_from_file", path, nullptr, out, false);
}

qtune_status qtune_runtime_create_from_file_for_target(const char* path, const char* target_key, qtune_runtime** out) {
  return create_from_file("qtune_runtime_create_from_file_for_target", path, target_key, out, true);
}

void qtune_runtime_destroy(qtune_runtime* rt) { delete rt; }

qtune_status qtune_runtime_set_warning_callback(qtune_runtime* rt, qtune_warning_callback callback, void* user_data) {
  return guarded("qtune_runtime_set_warning_callback", [&] {
    require(rt, "rt");
    if (callback == nullptr) {
      rt->runtime.set_warning_sink(nullptr);
      return;
    }
    rt->runtime.set_warning_sink([callback, user_data](const std::string& message) {
      callback(message.c_str(), user_data);
    });
  });
}

const char* qtune_runtime_target_key(const qtune_runtime* rt) {
  return rt == nullptr ? nullptr : rt->runtime.target_key().c_str();
}

size_t qtune_runtime_tuned_count(const qtune_runtime* rt) { return rt == nullptr ? 0 : rt->runtime.tuned_workloads(); }

size_t qtune_runtime_fallback_count(qtune_runtime* rt) {
  if (rt == nullptr) return 0;
  return rt->runtime.fallback_count();
}

qtune_status qtune_runtime_fallback(qtune_runtime* rt, size_t index, const char** workload_key, const char** config_key,
                                    const char** reason) {
  return guarded("qtune_runtime_fallback", [&] {
    require(rt, "rt");
    std::lock_guard<std::mutex> lock(rt->mutex);
    // The runtime's report is append-only: copy what is new, then hand out stable pointers.
    const std::size_t available = rt->runtime.fallback_count();
    while (rt->fallbacks.size() < available) rt->fallbacks.push_back(rt->runtime.fallback(rt->fallbacks.size()));
    if (index >= rt->fallbacks.size())
      throw std::out_of_range("index " + std::to_string(index) + " past the " + std::to_string(rt->fallbacks.size()) +
                              " fallback entries");
    const FallbackEntry& entry = rt->fallbacks[index];
    if (workload_key != nullptr) *workload_key = entry.workload_key.c_str();
    if (config_key != nullptr) *config_key = entry.config_key.c_str();
    if (reason != nullptr) *reason = entry.reason.c_str();
  });
}

qtune_status qtune_gemm_prepare(qtune_runtime* rt, const qtune_gemm_desc* desc, const int8_t* weights,
                                const int32_t* bias, qtune_op** out) {
  return guarded("qtune_gemm_prepare", [&] {
    require(out, "out");
    *out = nullptr;
    require(rt, "rt");
    require(desc, "desc");
    require(weights, "weights");
    const qtune::GemmProblem problem = qtune::runtime::detail::to_gemm_problem(*desc, bias != nullptr);
    const std::size_t ldb = desc->ldb == 0 ? static_cast<std::size_t>(desc->n) : desc->ldb;
    *out = new qtune_op{rt->runtime.prepare_gemm(problem, weights, ldb, bias, desc->threads)};
  });
}

qtune_status qtune_gemm_run(const qtune_op* op, const void* a, size_t lda, void* c, size_t ldc) {
  return guarded("qtune_gemm_run", [&] {
    const PreparedGemm& gemm = gemm_of(op);
    require(a, "a");
    require(c, "c");
    gemm.run(a, lda, c, ldc);
  });
}

qtune_status qtune_conv2d_prepare(qtune_runtime* rt, const qtune_conv2d_desc* desc, const int8_t* weights,
                                  const int32_t* bias, qtune_op** out) {
  return guarded("qtune_conv2d_prepare", [&] {
    require(out, "out");
    *out = nullptr;
    require(rt, "rt");
    require(desc, "desc");
    require(weights, "weights");
    const qtune::Conv2dProblem problem = qtune::runtime::detail::to_conv2d_problem(*desc, bias != nullptr);
    *out = new qtune_op{rt->runtime.prepare_conv2d(problem, weights, bias, desc->threads)};
  });
}

qtune_status qtune_conv2d_run(const qtune_op* op, const void* input, void* output) {
  return guarded("qtune_conv2d_run", [&] {
    const PreparedConv2d& conv = conv2d_of(op);
    require(input, "input");
    require(output, "output");
    conv.run(input, output);
  });
}

void qtune_op_destroy(qtune_op* op) { delete op; }

const char* qtune_op_config_key(const qtune_op* op) {
  return op == nullptr ? nullptr : op->selection().config_key.c_str();
}

const char* qtune_op_workload_key(const qtune_op* op) {
  return op == nullptr ? nullptr : op->selection().workload_key.c_str();
}

const char* qtune_op_fallback_reason(const qtune_op* op) {
  return op == nullptr ? nullptr : op->selection().reason.c_str();
}

qtune_config_source qtune_op_config_source(const qtune_op* op) {
  if (op == nullptr) return QTUNE_SOURCE_HEURISTIC;
  switch (op->selection().source) {
    case qtune::runtime::ConfigSource::tuned: return QTUNE_SOURCE_TUNED;
    case qtune::runtime::ConfigSource::nearest: return QTUNE_SOURCE_NEAREST;
    case qtune::runtime::ConfigSource::heuristic: return QTUNE_SOURCE_HEURISTIC;
  }
  return QTUNE_SOURCE_HEURISTIC;
}

qtune_status qtune_gemm_reference(const qtune_gemm_desc* desc, const void* a, size_t lda, const int8_t* weights,
                                  const int32_t* bias, void* c, size_t ldc) {
  return guarded("qtune_gemm_reference", [&] {
    require(desc, "desc");
    require(a, "a");
    require(weights, "weights");
    require(c, "c");
    const qtune::GemmProblem problem = qtune::runtime::detail::to_gemm_problem(*desc, bias != nullptr);
    const std::size_t ldb = desc->ldb == 0 ? static_cast<std::size_t>(desc->n) : desc->ldb;
    if (lda < static_cast<std::size_t>(problem.k)) throw std::invalid_argument("lda is smaller than K");
    if (ldb < static_cast<std::size_t>(problem.n)) throw std::invalid_argument("ldb is smaller than N");
    if (ldc < static_cast<std::size_t>(problem.n)) throw std::invalid_argument("ldc is smaller than N");
    qtune::gemm_reference(problem, a, lda, weights, ldb, bias, c, ldc);
  });
}

qtune_status qtune_conv2d_reference(const qtune_conv2d_desc* desc, const void* input, const int8_t* weights,
                                    const int32_t* bias, void* output) {
  return guarded("qtune_conv2d_reference", [&] {
    require(desc, "desc");
    require(input, "input");
    require(weights, "weights");
    require(output, "output");
    const qtune::Conv2dProblem problem = qtune::runtime::detail::to_conv2d_problem(*desc, bias != nullptr);
    qtune::conv2d_reference(problem, input, weights, bias, output);
  });
}

}  // extern "C"
