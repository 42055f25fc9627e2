#include "qtune/measure/result.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace qtune {
namespace {

constexpr std::array<ErrorKind, 7> kAllKinds = {ErrorKind::none,          ErrorKind::invalid_workload,
                                                ErrorKind::invalid_config, ErrorKind::wrong_answer,
                                                ErrorKind::runtime_error,  ErrorKind::crash,
                                                ErrorKind::timeout};

}  // namespace

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::none: return "none";
    case ErrorKind::invalid_workload: return "invalid_workload";
    case ErrorKind::invalid_config: return "invalid_config";
    case ErrorKind::wrong_answer: return "wrong_answer";
    case ErrorKind::runtime_error: return "runtime_error";
    case ErrorKind::crash: return "crash";
    case ErrorKind::timeout: return "timeout";
  }
  return "?";
}

std::optional<ErrorKind> parse_error_kind(std::string_view name) {
  for (ErrorKind k : kAllKinds) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

MeasureStats MeasureStats::from_samples(std::vector<double> samples, std::int64_t iterations) {
  MeasureStats s;
  s.samples = samples;
  s.iterations = iterations;
  s.repetitions = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  double sq = 0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0;  // sample standard deviation
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  return s;
}

std::string utc_timestamp() {
  // Microseconds: a session measures the same configuration again (confirmation) within a second,
  // and the database tells measurements apart by time and content.
  const auto now = std::chrono::system_clock::now();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[40];
  const std::size_t n = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buffer + n, sizeof buffer - n, ".%06lldZ", static_cast<long long>(micros % 1000000));
  return buffer;
}

nlohmann::json to_json(const MeasureResult& r) {
  return {{"workload", r.workload_key},
          {"config", r.config_key},
          {"target", r.target_key},
          {"stats",
           {{"median", r.stats.median},
            {"min", r.stats.min},
            {"max", r.stats.max},
            {"mean", r.stats.mean},
            {"stddev", r.stats.stddev},
            {"cv", r.stats.cv},
            {"repetitions", r.stats.repetitions},
            {"iterations", r.stats.iterations},
            {"samples", r.stats.samples}}},
          {"gops", r.gops},
          {"error", std::string(to_string(r.error))},
          {"error_message", r.error_message},
          {"settings", to_json(r.settings)},
          {"timestamp", r.timestamp},
          {"worker_pid", r.worker_pid},
          {"wall_seconds", r.wall_seconds},
          {"waiting_share", r.waiting_share ? nlohmann::json(*r.waiting_share) : nlohmann::json()}};
}

MeasureResult result_from_json(const nlohmann::json& j) {
  MeasureResult r;
  auto get = [&](const nlohmann::json& obj, const char* name, auto& out) {
    if (!obj.contains(name)) throw std::invalid_argument(std::string("measure result: missing field '") + name + "'");
    try {
      obj.at(name).get_to(out);
    } catch (const nlohmann::json::exception&) {
      throw std::invalid_argument(std::string("measure result: field '") + name + "' has the wrong type");
    }
  };
  if (!j.is_object()) throw std::invalid_argument("measure result: expected a JSON object");
  get(j, "workload", r.workload_key);
  get(j, "config", r.config_key);
  get(j, "target", r.target_key);
  if (!j.contains("stats") || !j.at("stats").is_object())
    throw std::invalid_argument("measure result: missing field 'stats'");
  const auto& s = j.at("stats");
  get(s, "median", r.stats.median);
  get(s, "min", r.stats.min);
  get(s, "max", r.stats.max);
  get(s, "mean", r.stats.mean);
  get(s, "stddev", r.stats.stddev);
  get(s, "cv", r.stats.cv);
  get(s, "repetitions", r.stats.repetitions);
  get(s, "iterations", r.stats.iterations);
  get(s, "samples", r.stats.samples);
  get(j, "gops", r.gops);
  std::string kind;
  get(j, "error", kind);
  auto parsed = parse_error_kind(kind);
  if (!parsed) throw std::invalid_argument("measure result: field 'error' has unknown kind '" + kind + "'");
  r.error = *parsed;
  get(j, "error_message", r.error_message);
  if (!j.contains("settings")) throw std::invalid_argument("measure result: missing field 'settings'");
  r.settings = settings_from_json(j.at("settings"));
  get(j, "timestamp", r.timestamp);
  get(j, "worker_pid", r.worker_pid);
  get(j, "wall_seconds", r.wall_seconds);
  if (j.contains("waiting_share") && !j.at("waiting_share").is_null()) {
    double share = 0;
    get(j, "waiting_share", share);
    r.waiting_share = share;
  }
  return r;
}

}  // namespace qtune
