#include "qtune/records/tuning_log.h"

#include <map>
#include <string>
#include <utility>

#include "filter_match.h"
#include "qtune/records/best_selection.h"
#include "qtune/records/log_format.h"

namespace qtune::records {

TuningLog::TuningLog(std::vector<MeasurementRecord> records, std::map<std::string, WorkloadSummary> workloads)
    : records_(std::move(records)), workloads_(std::move(workloads)) {}

TuningLog TuningLog::open(const std::string& path, const KeyValidators& validators) {
  LogReadResult log = read_log_file(path, validators);
  if (!log.problems.empty()) throw LogError(std::move(log.problems));
  std::map<std::string, WorkloadSummary> workloads;
  for (const MeasurementRecord& r : log.records) {
    auto [it, inserted] = workloads.try_emplace(r.workload_key);
    if (!inserted) continue;
    // Every line's workload passed the validator already: describing it cannot fail.
    it->second = validators.workload ? validators.workload(r.workload_key) : default_workload_summary(r.workload_key);
    if (it->second.op.empty()) it->second.op = default_workload_summary(r.workload_key).op;
  }
  return TuningLog(std::move(log.records), std::move(workloads));
}

std::vector<MeasurementRecord> TuningLog::measurements(const MeasurementFilter& filter) const {
  std::vector<MeasurementRecord> out;
  for (const MeasurementRecord& r : records_) {
    if (matches_filter(filter, r, workloads_.at(r.workload_key))) out.push_back(r);
  }
  return out;
}

std::vector<BestRecord> TuningLog::all_best(const MeasurementFilter& filter) const {
  // Trials and failures of every pair, whatever the filter (as the database counts them).
  std::map<std::pair<std::string, std::string>, BestRecord> counts;
  for (const MeasurementRecord& r : records_) {
    BestRecord& pair = counts[{r.workload_key, r.target_key}];
    ++pair.trials;
    if (!r.correct()) ++pair.failures;
  }
  MeasurementFilter correct = filter;
  correct.correct_only = true;
  std::vector<BestRecord> out;
  for (MeasurementRecord& best : select_best(measurements(correct))) {
    BestRecord b = counts.at({best.workload_key, best.target_key});
    b.measurement = std::move(best);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace qtune::records
