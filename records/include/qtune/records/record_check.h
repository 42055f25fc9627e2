// The consistency rules of a measurement, shared by the database (add_measurement) and the log
// reader, so that nothing the database accepts could not be exported and read back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/records/measurement.h"

namespace qtune::records {

// One problem with one field, named the way the log format names it ("stats.median_ns").
struct FieldProblem {
  std::string field;    // empty when the problem is the whole record
  std::string message;  // "must be >= 0, got -5"
};

// Checks values and relations (non-negative finite times, min <= median <= max, cv >= 0,
// repetitions >= 1, stats present when correct, error kind spelling, timestamp format,
// settings an object or null). Keys are only checked non-empty here; their syntax is the
// injected validators' job.
std::vector<FieldProblem> check_record(const MeasurementRecord& record);

// The range rules of a single stats field (times, cv and gops finite and >= 0; counts >= 1):
// "" when fine. Lets a reader check the fields a line does have even
// when others are missing.
std::string check_stats_number(double value);
std::string check_stats_count(std::int64_t value);

// Error kinds are lower-case identifiers ("wrong_answer"); qtune's own ones are listed for the
// documentation, others are accepted for forward compatibility.
bool is_error_kind_spelling(const std::string& kind);

}  // namespace qtune::records
