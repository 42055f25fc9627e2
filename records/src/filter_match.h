// MeasurementFilter applied to measurements held in memory (a log), with the meaning the
// database's SQL gives it (tuning_db.cc, where_of), so that both answer a query alike.
#pragma once

#include "qtune/records/measurement.h"

namespace qtune::records {

// `workload` describes the record's workload (its op and description, for filter.op and
// filter.shape_contains).
bool matches_filter(const MeasurementFilter& filter, const MeasurementRecord& record, const WorkloadSummary& workload);

}  // namespace qtune::records
