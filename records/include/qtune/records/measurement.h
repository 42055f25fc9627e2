// What the tuning database stores: measurements (every try, errors included), the sessions that
// made them, and the best correct one per (workload, target). Workload, target and config keys
// are opaque canonical strings here; their formats belong to search_space.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace qtune::records {

// Timing of one configuration: statistics over `repetitions` repetitions, each timing
// `iterations` back-to-back runs. Times are per run, in nanoseconds.
struct TimingStats {
  double median_ns = 0, min_ns = 0, max_ns = 0, mean_ns = 0, stddev_ns = 0;
  double cv = 0;  // coefficient of variation, stddev / mean
  std::int64_t repetitions = 0;
  std::int64_t iterations = 0;
  double gops = 0;  // throughput at the median, 1e9 ops per second
  friend bool operator==(const TimingStats&, const TimingStats&) = default;
};

enum class MeasurementSource { measured, imported };
std::string to_string(MeasurementSource source);
MeasurementSource parse_measurement_source(const std::string& text);  // std::invalid_argument

struct MeasurementRecord {
  std::int64_t id = 0;                     // assigned by the database
  std::optional<std::int64_t> session_id;  // none for imported measurements
  std::string workload_key;
  std::string target_key;
  std::string config_key;
  std::optional<TimingStats> stats;  // required when correct; may be absent for errors
  std::string error_kind;            // "" when correct, else "wrong_answer", "crash", "timeout", ...
  std::string error_message;
  nlohmann::json settings;     // measurement settings (an object), or null
  std::string timestamp;       // ISO-8601 UTC "2024-05-01T12:00:00.000000Z"; empty = now at insert
  std::string qtune_version;   // the qtune that measured it
  MeasurementSource source = MeasurementSource::measured;

  bool correct() const { return error_kind.empty(); }
  // Kept although the machine was busy while it was measured: `"disturbed": true` in its settings
  // (docs/measurement-protocol.md). Records of a qtune without the check are not.
  bool disturbed() const {
    if (!settings.is_object()) return false;
    const auto it = settings.find("disturbed");
    return it != settings.end() && it->is_boolean() && it->get<bool>();
  }
};

// The best configuration of a (workload, target) as its median measurement (best_selection.h), and
// how many measurements of that pair exist.
struct BestRecord {
  MeasurementRecord measurement;
  std::int64_t trials = 0;    // every measurement of the pair, errors included
  std::int64_t failures = 0;  // those with an error
};

struct WorkloadSummary {
  std::string key;
  std::string op;                // "gemm", "conv2d": the key's prefix unless a validator says otherwise
  std::optional<double> gops;    // operations of one run, 1e9; when the validator knows
  std::string description;       // short human form ("gemm 784x128x1152"); may be empty
  std::int64_t measurements = 0; // filled by queries
};

struct TargetSummary {
  std::string key;
  std::string arch;  // from the key's "arch=" field when present
  std::string cpu;   // from the key's "cpu=" field when present
  std::int64_t measurements = 0;  // filled by queries
};

enum class SessionStatus { running, completed, interrupted, failed };
std::string to_string(SessionStatus status);
SessionStatus parse_session_status(const std::string& text);  // std::invalid_argument

struct SessionInfo {
  std::string command_line;
  std::string strategy;
  std::optional<std::uint64_t> seed;
  std::string target_key;
  std::string qtune_version;
};

struct SessionRecord {
  std::int64_t id = 0;
  std::string uid;  // globally unique; lets merges recognise the same session from another file
  SessionInfo info;
  std::string started_at;
  std::string ended_at;  // empty while running (or when the process died)
  // A session whose process was killed stays 'running' until the next session begins on the
  // database at a moment when no other session process is alive; that one marks it 'interrupted'
  // (ended_at stays empty: when it died is unknown).
  SessionStatus status = SessionStatus::running;
  std::int64_t measurements = 0;
};

// One trial of a session, in the order it was measured, with the best correct median of its
// workload so far (the tuning curve of reports).
struct TrialPoint {
  std::int64_t trial = 0;  // 1-based order within the session
  std::int64_t measurement_id = 0;
  std::string workload_key;
  std::string config_key;
  std::optional<double> median_ns;  // absent for errors without timing
  std::string error_kind;
  std::optional<double> best_so_far_ns;  // of this workload in this session
};

// Restricts queries; unset fields match everything.
struct MeasurementFilter {
  std::optional<std::string> workload_key;
  std::optional<std::string> target_key;
  std::optional<std::string> config_key;
  std::optional<std::string> op;              // workload's op, "gemm" / "conv2d"
  std::optional<std::string> shape_contains;  // substring of the workload key or description
  std::optional<std::int64_t> session_id;
  std::optional<MeasurementSource> source;
  bool correct_only = false;
};

}  // namespace qtune::records
