// The runtime: per-layer dispatch of tuned kernel variants.
//
//   auto rt = qtune::runtime::Runtime::from_file("best.jsonl");   // or a tuning database
//   auto conv = rt.prepare_conv2d(problem, weights, bias, /*threads=*/4);   // once per layer
//   conv.run(input, output);                                             // many times
//
// Loading keeps the best correct configuration of every workload of one target (the current
// CPU and build, qtune::current_target(), unless RuntimeOptions::target_key names another) in a
// hash map keyed by the workload's lookup key, so choosing is one hash lookup.
//
// For each layer the runtime picks, in this order:
//   1. tuned:     the configuration tuned for exactly this workload;
//   2. nearest:   the configuration of the nearest tuned workload of the same family (operator,
//                 quantization kind, convolution structure; shape_distance.h), adapted to the new
//                 shape: blocking values the shape makes meaningless are reset to "whole
//                 dimension", the thread count is capped by the budget, and the result is checked
//                 again with gemm_check_config / conv2d_check_config;
//   3. heuristic: gemm_default_config / conv2d_default_config.
// A configuration this CPU cannot run (an instruction set it lacks, a tile this build does not
// have) is never executed: it is skipped, and a warning is sent to the sink once per cause.
// Every layer that did not get its own tuned configuration is listed in fallbacks().
//
// Thread safety: all const member functions, including prepare_*, may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/runtime/prepared_ops.h"
#include "qtune/runtime/selection.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime {

// Receives one human-readable line per warning (no trailing newline).
using WarningSink = std::function<void(const std::string& message)>;

// The sink used when none is given: writes "qtune: warning: <message>" to stderr.
WarningSink stderr_warning_sink();

struct RuntimeOptions {
  // Use the entries of this target key; empty means this process's target
  // (qtune::current_target()) or, when nothing was tuned for exactly that, its nearest compatible
  // target (same architecture and CPU model: target_compatibility.h), named once through the
  // warning sink. Entries of other targets are ignored (counted in Runtime::other_target_workloads()).
  std::string target_key;
  // Warnings (each distinct cause once per Runtime); stderr_warning_sink() when empty.
  WarningSink warning_sink;
};

// Whether a layer whose tuned best is a vendor library's configuration runs it.
enum class LibraryUse : unsigned char {
  allowed,       // the tuned best, whatever computes it
  kernels_only,  // qtune's kernels: the best of them measured for the workload, else the nearest or
                 // the default. For callers that run other work on qtune's thread pool between
                 // layers at several threads (a whole model), where a library's own threads (OpenMP)
                 // would spin beside the pool's after each layer.
};

// One tuned configuration, as stored in databases and logs.
struct TunedConfig {
  std::string workload_key;
  std::string target_key;
  std::string config_key;
  double median_ns = 0;  // when two entries share a workload, the faster one is kept
};

class Runtime {
 public:
  // No tuning data: every layer gets the heuristic default.
  explicit Runtime(RuntimeOptions options = {});

  // The best configuration of every workload of the target, from entries in memory.
  // std::invalid_argument naming the entry when a key does not parse (workload, target or a
  // configuration key that is not a configuration of the workload's operator).
  static Runtime from_entries(const std::vector<TunedConfig>& entries, RuntimeOptions options = {});
  // A tuning database (opened read-only; records::DbError when it is not one or is damaged).
  static Runtime from_database(const std::string& path, RuntimeOptions options = {});
  // A JSON-lines log (records::TuningLog); the fastest correct line per workload and target
  // wins. std::runtime_error listing the problems when a line is invalid or the file unreadable.
  static Runtime from_log(const std::string& path, RuntimeOptions options = {});
  // Either of the two, told apart by the file's first bytes (the SQLite header).
  static Runtime from_file(const std::string& path, RuntimeOptions options = {});

  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;
  ~Runtime();

  const std::string& target_key() const;      // the target whose entries are used
  // How that target differs from this process's ("" when it is this process's own, or named in
  // RuntimeOptions), e.g. "cores 2 -> 1".
  const std::string& target_differences() const;
  std::size_t tuned_workloads() const;       // workloads with a configuration for the target
  std::size_t other_target_workloads() const;  // tuned workloads of other targets, ignored
  // Blocks of layers tuned as one unit (qtune/search_space/block_workload.h) for the target, and a
  // block's configuration key (none when it was not tuned): its fastest fused configuration where
  // that beats its layers one by one by the margin (fused_block_pays), else the layers one by one.
  // The executor runs the block as it says.
  std::size_t tuned_blocks() const;
  std::optional<std::string> tuned_block(const std::string& block_key) const;
  void set_warning_sink(WarningSink sink);   // thread-safe

  // The choice for a layer without preparing it. Problems are validated (std::invalid_argument).
  Selection select_gemm(const GemmProblem& problem, int threads, LibraryUse libraries = LibraryUse::allowed) const;
  Selection select_conv2d(const Conv2dProblem& problem, int threads, LibraryUse libraries = LibraryUse::allowed) const;

  // Chooses and packs: b is K x N int8 with row stride ldb >= N, bias N values (null iff
  // !problem.has_bias); conv weights are HWIO as in conv2d.h. std::invalid_argument for an
  // invalid problem, a thread budget < 1 or a null weight pointer.
  PreparedGemm prepare_gemm(const GemmProblem& problem, const std::int8_t* b, std::size_t ldb,
                            const std::int32_t* bias, int threads, LibraryUse libraries = LibraryUse::allowed) const;
  PreparedConv2d prepare_conv2d(const Conv2dProblem& problem, const std::int8_t* weights,
                                const std::int32_t* bias, int threads,
                                LibraryUse libraries = LibraryUse::allowed) const;

  // Layers chosen so far that fell back, one entry per workload, in the order first seen.
  std::vector<FallbackEntry> fallbacks() const;
  std::size_t fallback_count() const;
  FallbackEntry fallback(std::size_t index) const;  // std::out_of_range past the end

  struct State;

 private:
  explicit Runtime(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace qtune::runtime
