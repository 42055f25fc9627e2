// The outcome of measuring one (workload, configuration): timing statistics or an error kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "qtune/measure/settings.h"

namespace qtune {

enum class ErrorKind : unsigned char {
  none,              // measured
  invalid_workload,  // the workload key does not parse or validate
  invalid_config,    // the configuration is not in the workload's space on this CPU
  wrong_answer,      // the output differs from the scalar reference (no timing is done)
  runtime_error,     // prepare or run threw
  crash,             // the worker died: signal name or exit status in the message
  timeout,           // the worker exceeded MeasureSettings::timeout_seconds and was killed
};
std::string_view to_string(ErrorKind kind);  // "none", "wrong_answer", "crash", ...
std::optional<ErrorKind> parse_error_kind(std::string_view name);

// Seconds per run of the kernel, over the repetitions.
struct MeasureStats {
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  double cv = 0;                  // stddev / mean
  int repetitions = 0;
  std::int64_t iterations = 0;    // kernel runs per repetition (the last repetition's count)
  std::vector<double> samples;    // per repetition

  static MeasureStats from_samples(std::vector<double> samples, std::int64_t iterations);
};

struct MeasureResult {
  std::string workload_key, config_key, target_key;
  MeasureStats stats;
  double gops = 0;                // workload GOPs / median seconds
  ErrorKind error = ErrorKind::none;
  std::string error_message;
  MeasureSettings settings;
  std::string timestamp;          // UTC ISO-8601, "2024-05-01T12:34:56Z"
  int worker_pid = 0;             // process that ran the candidate
  double wall_seconds = 0;        // whole measurement incl. check, warm-up, overhead
  // Disturbance: seconds the process's threads waited for a CPU while runnable (other processes
  // had it) per second of timing, summed over threads (so up to the thread count); nullopt where
  // the kernel keeps no scheduler statistics, and in results of qtune before it was recorded.
  std::optional<double> waiting_share;

  bool ok() const { return error == ErrorKind::none; }
};

nlohmann::json to_json(const MeasureResult& result);
MeasureResult result_from_json(const nlohmann::json& j);  // std::invalid_argument naming the field

std::string utc_timestamp();  // now, ISO-8601 UTC with microseconds: 2024-05-01T12:00:00.123456Z

}  // namespace qtune
