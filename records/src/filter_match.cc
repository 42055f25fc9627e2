#include "filter_match.h"

namespace qtune::records {

bool matches_filter(const MeasurementFilter& filter, const MeasurementRecord& record, const WorkloadSummary& workload) {
  if (filter.workload_key && record.workload_key != *filter.workload_key) return false;
  if (filter.target_key && record.target_key != *filter.target_key) return false;
  if (filter.config_key && record.config_key != *filter.config_key) return false;
  if (filter.op && workload.op != *filter.op) return false;
  if (filter.shape_contains && record.workload_key.find(*filter.shape_contains) == std::string::npos &&
      workload.description.find(*filter.shape_contains) == std::string::npos)
    return false;
  // A measurement without a session (imported) matches no session, as SQL's NULL = ? is false.
  if (filter.session_id && record.session_id != filter.session_id) return false;
  if (filter.source && record.source != *filter.source) return false;
  if (filter.correct_only && !record.correct()) return false;
  return true;
}

}  // namespace qtune::records
