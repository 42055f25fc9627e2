// A qtune-log/1 JSON-lines log (log_format.h) read as TuningRecords: read-only, every line held in
// memory. What ships with a model (`qtune export --best`), or every measurement of a database
// (`qtune export --all`); the runtime reads it exactly as it reads a database.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "qtune/records/key_validators.h"
#include "qtune/records/measurement.h"
#include "qtune/records/tuning_records.h"

namespace qtune::records {

class TuningLog final : public TuningRecords {
 public:
  // Reads and checks every line with the validators, which also give configuration keys in this
  // build's spelling. LogError listing every problem when a line is invalid; std::runtime_error
  // "<path>: cannot open: <reason>" when the file is unreadable.
  static TuningLog open(const std::string& path, const KeyValidators& validators);

  // Measurements in line order. A log has no sessions: a filter on a session matches nothing.
  std::vector<MeasurementRecord> measurements(const MeasurementFilter& filter = {}) const override;
  std::vector<BestRecord> all_best(const MeasurementFilter& filter = {}) const override;

 private:
  TuningLog(std::vector<MeasurementRecord> records, std::map<std::string, WorkloadSummary> workloads);

  std::vector<MeasurementRecord> records_;
  // Each workload as the validators describe it: what filters on the operator or the shape see,
  // as the database's workloads table gives them.
  std::map<std::string, WorkloadSummary> workloads_;
};

}  // namespace qtune::records
