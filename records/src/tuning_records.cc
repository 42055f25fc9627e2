#include "qtune/records/tuning_records.h"

#include <utility>

namespace qtune::records {

std::optional<BestRecord> TuningRecords::best(const std::string& workload_key, const std::string& target_key) const {
  MeasurementFilter filter;
  filter.workload_key = workload_key;
  filter.target_key = target_key;
  auto all = all_best(filter);
  if (all.empty()) return std::nullopt;
  return std::move(all.front());
}

}  // namespace qtune::records
