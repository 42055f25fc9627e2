#include "qtune/tuner/disturbance.h"

namespace qtune {

bool is_disturbed(const MeasureResult& result, const DisturbancePolicy& policy) {
  return result.ok() && result.waiting_share && *result.waiting_share > policy.max_waiting_share;
}

UndisturbedMeasurement measure_undisturbed(Measurer& measurer, const Workload& workload, const Config& config,
                                           const MeasureSettings& settings, const DisturbancePolicy& policy,
                                           const std::function<bool()>& stop) {
  UndisturbedMeasurement out{measurer.measure(workload, config, settings)};
  while (is_disturbed(out.result, policy) && out.disturbed_attempts < policy.retries && !(stop && stop())) {
    ++out.disturbed_attempts;
    MeasureResult again = measurer.measure(workload, config, settings);
    // Keep the least disturbed attempt (a failure is news: keep it).
    if (!again.ok() || !again.waiting_share || *again.waiting_share < *out.result.waiting_share) out.result = std::move(again);
  }
  out.disturbed = is_disturbed(out.result, policy);
  return out;
}

void record_disturbance(records::MeasurementRecord& record, const UndisturbedMeasurement& measured) {
  if (!record.settings.is_object()) return;
  if (measured.result.waiting_share) record.settings["waiting_share"] = *measured.result.waiting_share;
  record.settings["disturbed_attempts"] = measured.disturbed_attempts;
  record.settings["disturbed"] = measured.disturbed;
}

std::optional<bool> recorded_disturbed(const records::MeasurementRecord& record) {
  if (!record.settings.is_object() || !record.settings.contains("disturbed") ||
      !record.settings.at("disturbed").is_boolean())
    return std::nullopt;
  return record.disturbed();
}

}  // namespace qtune
