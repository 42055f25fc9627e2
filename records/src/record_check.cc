#include "qtune/records/record_check.h"

#include <cmath>
#include <sstream>

#include "qtune/records/timestamp.h"

namespace qtune::records {

namespace {

std::string number(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// Times are averages of real runs; a mean computed in floating point may exceed the largest
// sample by rounding, so the order checks allow a relative slack of a few ulps.
bool not_above(double a, double b) { return a <= b + 1e-9 * std::abs(b); }

void check_stats(const TimingStats& s, std::vector<FieldProblem>& problems) {
  const std::pair<const char*, double> values[] = {{"stats.median_ns", s.median_ns}, {"stats.min_ns", s.min_ns},
                                                   {"stats.max_ns", s.max_ns},       {"stats.mean_ns", s.mean_ns},
                                                   {"stats.stddev_ns", s.stddev_ns}, {"stats.cv", s.cv},
                                                   {"stats.gops", s.gops}};
  bool all_valid = true;
  for (const auto& [field, value] : values) {
    if (std::string problem = check_stats_number(value); !problem.empty()) {
      problems.push_back({field, problem});
      all_valid = false;
    }
  }
  for (const auto& [field, value] : {std::pair<const char*, std::int64_t>{"stats.repetitions", s.repetitions},
                                     std::pair<const char*, std::int64_t>{"stats.iterations", s.iterations}}) {
    if (std::string problem = check_stats_count(value); !problem.empty()) problems.push_back({field, problem});
  }
  if (!all_valid) return;
  if (!not_above(s.min_ns, s.median_ns))
    problems.push_back({"stats.min_ns", "must be <= median_ns (" + number(s.median_ns) + "), got " + number(s.min_ns)});
  if (!not_above(s.median_ns, s.max_ns))
    problems.push_back({"stats.max_ns", "must be >= median_ns (" + number(s.median_ns) + "), got " + number(s.max_ns)});
  if (!not_above(s.min_ns, s.mean_ns) || !not_above(s.mean_ns, s.max_ns))
    problems.push_back({"stats.mean_ns", "must be between min_ns and max_ns, got " + number(s.mean_ns)});
}

}  // namespace

std::string check_stats_number(double value) {
  if (!std::isfinite(value)) return "must be a finite number";
  if (value < 0) return "must be >= 0, got " + number(value);
  return "";
}

std::string check_stats_count(std::int64_t value) {
  return value < 1 ? "must be >= 1, got " + std::to_string(value) : "";
}

bool is_error_kind_spelling(const std::string& kind) {
  if (kind.empty() || kind.size() > 64) return false;
  for (char c : kind) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return kind[0] >= 'a' && kind[0] <= 'z';
}

std::vector<FieldProblem> check_record(const MeasurementRecord& r) {
  std::vector<FieldProblem> problems;
  if (r.workload_key.empty()) problems.push_back({"workload", "must not be empty"});
  if (r.target_key.empty()) problems.push_back({"target", "must not be empty"});
  if (r.config_key.empty()) problems.push_back({"config", "must not be empty"});
  if (r.stats) check_stats(*r.stats, problems);
  if (r.correct()) {
    if (!r.stats) problems.push_back({"stats", "required for a correct measurement (error is null)"});
  } else if (!is_error_kind_spelling(r.error_kind)) {
    problems.push_back({"error.kind", "must be a lower-case identifier like 'wrong_answer', got '" + r.error_kind + "'"});
  }
  if (r.correct() && !r.error_message.empty())
    problems.push_back({"error.message", "must be empty when there is no error"});
  if (!r.timestamp.empty() && !canonical_timestamp(r.timestamp))
    problems.push_back(
        {"timestamp", "must be ISO-8601 UTC like 2024-05-01T12:00:00.000000Z, got '" + r.timestamp + "'"});
  if (!r.settings.is_null() && !r.settings.is_object())
    problems.push_back({"settings", "must be an object or absent"});
  return problems;
}

}  // namespace qtune::records
