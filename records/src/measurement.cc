#include "qtune/records/measurement.h"

#include <algorithm>
#include <stdexcept>

#include "qtune/records/key_validators.h"

namespace qtune::records {

std::string to_string(MeasurementSource source) {
  return source == MeasurementSource::measured ? "measured" : "imported";
}

MeasurementSource parse_measurement_source(const std::string& text) {
  if (text == "measured") return MeasurementSource::measured;
  if (text == "imported") return MeasurementSource::imported;
  throw std::invalid_argument("unknown measurement source '" + text + "' (expected measured or imported)");
}

std::string to_string(SessionStatus status) {
  switch (status) {
    case SessionStatus::running: return "running";
    case SessionStatus::completed: return "completed";
    case SessionStatus::interrupted: return "interrupted";
    case SessionStatus::failed: return "failed";
  }
  return "failed";
}

SessionStatus parse_session_status(const std::string& text) {
  for (auto s : {SessionStatus::running, SessionStatus::completed, SessionStatus::interrupted, SessionStatus::failed}) {
    if (to_string(s) == text) return s;
  }
  throw std::invalid_argument("unknown session status '" + text +
                              "' (expected running, completed, interrupted or failed)");
}

WorkloadSummary default_workload_summary(const std::string& key) {
  WorkloadSummary summary;
  summary.key = key;
  const auto colon = key.find(':');
  if (colon != std::string::npos) summary.op = key.substr(0, colon);
  return summary;
}

TargetSummary default_target_summary(const std::string& key) {
  TargetSummary summary;
  summary.key = key;
  std::size_t start = 0;
  while (start <= key.size()) {
    const auto end = std::min(key.find(';', start), key.size());
    const std::string field = key.substr(start, end - start);
    if (field.rfind("arch=", 0) == 0) summary.arch = field.substr(5);
    if (field.rfind("cpu=", 0) == 0) summary.cpu = field.substr(4);
    start = end + 1;
  }
  return summary;
}

}  // namespace qtune::records
