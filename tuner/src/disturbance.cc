#include "qtune/tuner/disturbance.h"

#include <utility>

#include "qtune/measure/least_disturbed.h"

namespace qtune {

bool is_disturbed(const MeasureResult& result, const DisturbancePolicy& policy) {
  return result.ok() && result.waiting_share && *result.waiting_share > policy.max_waiting_share;
}

UndisturbedMeasurement measure_undisturbed(Measurer& measurer, const Workload& workload, const Config& config,
                                           const MeasureSettings& settings, const DisturbancePolicy& policy,
                                           const std::function<bool()>& stop) {
  // A failed measurement has no waiting share to judge: its error is the news, not retried.
  auto kept = least_disturbed<MeasureResult>(
      [&] {
        MeasureResult result = measurer.measure(workload, config, settings);
        const std::optional<double> share = result.ok() ? result.waiting_share : std::nullopt;
        return std::pair{std::move(result), share};
      },
      policy.max_waiting_share, policy.retries, [&] { return stop && stop(); });
  return {std::move(kept.kept), kept.retries, kept.disturbed};
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
