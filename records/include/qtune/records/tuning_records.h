// Tuning results as their readers see them, whichever file holds them: the tuning database
// (tuning_db.h) or a qtune-log/1 JSON-lines log (tuning_log.h). The runtime, the tuner and the
// evaluation of a network read through this interface only, so a log and a database load through
// one path and give the same answers. Both are opened with key validators (key_validators.h), so
// configuration keys read in this build's spelling: a row or line written before a knob existed
// reads with the knob's default.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qtune/records/measurement.h"

namespace qtune::records {

class TuningRecords {
 public:
  virtual ~TuningRecords() = default;

  // Matching measurements in the order they were recorded (for one target: transfer learning
  // across shapes). MeasurementFilter::config_key compares configuration keys as stored: a row
  // written before a knob existed matches only its older spelling.
  virtual std::vector<MeasurementRecord> measurements(const MeasurementFilter& filter = {}) const = 0;

  // Best per (workload, target) among the measurements matching the filter (best_selection.h),
  // ordered by workload key then target key; trials and failures count every measurement of the
  // pair.
  virtual std::vector<BestRecord> all_best(const MeasurementFilter& filter = {}) const = 0;

  // The pair's best configuration; errors are never best.
  std::optional<BestRecord> best(const std::string& workload_key, const std::string& target_key) const;
};

}  // namespace qtune::records
