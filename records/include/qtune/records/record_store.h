// Where a tuning session writes: its sessions and measurements, beside what it reads (the earlier
// measurements it resumes from and transfers across shapes). The tuning database (tuning_db.h) is
// the store; a log is read-only and is not one.
#pragma once

#include <cstdint>

#include "qtune/records/measurement.h"
#include "qtune/records/tuning_records.h"

namespace qtune::records {

class RecordStore : public TuningRecords {
 public:
  // A new session, 'running' until end_session; returns its id. std::invalid_argument when the
  // session's target key is invalid.
  virtual std::int64_t begin_session(const SessionInfo& info) = 0;
  virtual void end_session(std::int64_t session_id, SessionStatus status) = 0;

  // Commits one measurement and returns its id. Fills an empty timestamp with now. An identical
  // measurement (same keys, timestamp and results) already present is not stored twice: its id
  // is returned. std::invalid_argument when the record is inconsistent (see check_record) or a
  // key is invalid.
  virtual std::int64_t add_measurement(const MeasurementRecord& record) = 0;
};

}  // namespace qtune::records
