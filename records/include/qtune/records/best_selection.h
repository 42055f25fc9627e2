// Which configuration is the best of a workload on a target, defined once for the database
// (TuningDb::all_best), the logs the runtime loads, and everything built on them.
//
// A configuration's time is the lower median of the median times of its correct measurements: a
// session re-measures its leading candidates (see tuner/session.h), and on a shared machine one
// measurement can be disturbed (too slow) or lucky (a quiet moment), so no single measurement may
// decide. A measurement kept disturbed (MeasurementRecord::disturbed: the machine was busy through
// its retries) counts only for a configuration without an undisturbed one: a busy machine makes
// times slower, never faster. The best configuration has the least time; ties go to the earliest measurement (lowest
// id, then input order). Measurements with an error never count.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qtune/records/measurement.h"

namespace qtune::records {

// One record per (workload, target) that has a correct measurement, sorted by workload then target
// key: the best configuration's median measurement (the one whose time is the configuration's).
std::vector<MeasurementRecord> select_best(const std::vector<MeasurementRecord>& records);

// The kind of candidate a measurement's configuration is: "qtune" for qtune's kernels, else a
// library's name (reports::candidate_kind, or the runtime's parse of the key).
using CandidateKindFn = std::function<std::string(const MeasurementRecord&)>;

struct KindRecord {
  std::string kind;
  MeasurementRecord best;  // select_best among the measurements of this kind
};

// select_best within each kind: one record per (workload, target, kind), sorted by workload key,
// target key, then time (the pair's overall best first).
std::vector<KindRecord> select_best_of_each_kind(const std::vector<MeasurementRecord>& records,
                                                 const CandidateKindFn& kind);

}  // namespace qtune::records
