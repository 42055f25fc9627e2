// Noticing a busy machine while measuring: a measurement whose threads waited for a CPU (another
// process had it) beyond a threshold is taken again, a bounded number of times, and the record says
// how it went (docs/measurement-protocol.md, "Disturbance").
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "qtune/measure/measure.h"
#include "qtune/records/measurement.h"

namespace qtune {

struct DisturbancePolicy {
  // Disturbed: the threads waited for a CPU more than this many seconds per second of timing. An
  // idle machine stays below 0.01; a CPU-bound process sharing the measurement's core makes ~0.5.
  double max_waiting_share = 0.05;
  int retries = 2;  // measurements again after a disturbed one, at most
  // After this many measurements in a row stayed disturbed through their retries the machine is
  // busy throughout: retrying triples the session's time for nothing, so measurements are taken
  // once until one is quiet again (still recorded and counted as disturbed).
  int busy_streak = 8;

  // The policy for the next measurement after `streak` measurements in a row kept disturbed.
  DisturbancePolicy after_streak(int streak) const {
    DisturbancePolicy next = *this;
    if (streak >= busy_streak) next.retries = 0;
    return next;
  }
};

// A measurement taken, possibly again, and how disturbed its attempts were.
struct UndisturbedMeasurement {
  MeasureResult result;        // the least disturbed attempt (the one that ended the retries if quiet)
  int disturbed_attempts = 0;  // attempts thrown away as disturbed (0..retries)
  bool disturbed = false;      // the kept attempt is disturbed too (retries used up)
};

bool is_disturbed(const MeasureResult& result, const DisturbancePolicy& policy);

// Measures; while the kept result is disturbed, retries remain and `stop` (if given) is false, measures
// again. Failed measurements are not retried: their error is the news.
UndisturbedMeasurement measure_undisturbed(Measurer& measurer, const Workload& workload, const Config& config,
                                           const MeasureSettings& settings, const DisturbancePolicy& policy,
                                           const std::function<bool()>& stop = {});

// Records the disturbance with the measurement, in its settings object: "waiting_share" (of the
// kept attempt), "disturbed_attempts", "disturbed". Records without them predate the check.
void record_disturbance(records::MeasurementRecord& record, const UndisturbedMeasurement& measured);

// Whether a stored measurement was kept disturbed: nullopt for records of a qtune that did not
// check (no "disturbed" in their settings), or whose value is not a boolean.
std::optional<bool> recorded_disturbed(const records::MeasurementRecord& record);

}  // namespace qtune
