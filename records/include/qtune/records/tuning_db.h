// The tuning database: one SQLite file per project/device holding every measurement ever made
// (errors included), the sessions that made them, and the queries the tuner, the runtime, the
// reports and CI need.
//
// Durability and concurrency: WAL journal, synchronous=NORMAL, and each add_measurement() is its
// own transaction, so a kill -9 loses at most the measurement in flight (a power loss may drop the
// last few commits, never corrupt the file). Several processes may write
// the same file at once (busy timeout plus retries). One TuningDb must not be used by two threads
// at the same time; open one per thread instead.
//
// Opening never modifies a file that is not a qtune database of this or an older schema version:
// it is checked read-only first (identity, version, integrity) and new databases are built in a
// temporary file and linked into place atomically.
//
// A TuningDb is the RecordStore of tuning sessions and the TuningRecords of the runtime
// (record_store.h); the rest of its API serves the commands that manage databases (merge, import,
// export, query, report).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qtune/records/errors.h"
#include "qtune/records/key_validators.h"
#include "qtune/records/measurement.h"
#include "qtune/records/record_store.h"

namespace qtune::records {

enum class OpenMode {
  create,     // open an existing qtune database or create a new file; migrates older versions
  existing,   // the file must already be a qtune database; migrates older versions
  read_only,  // never writes; an older schema version is read as it is, without migrating
              // (schema_version() says which: reads of a table or column it lacks find nothing)
};

// Counts of an import or merge: rows that landed and rows that were already there.
struct TransferCounts {
  std::int64_t added = 0;
  std::int64_t already_present = 0;
  std::int64_t sessions_added = 0;  // merges only
};

class TuningDb final : public RecordStore {
 public:
  static constexpr int kSchemaVersion = 3;  // = schema::latest_version()

  // The validators are part of opening, so that no database is ever used without them:
  // add_measurement checks keys and describes new workloads/targets with them, and the readers
  // (measurements, best, all_best) give configuration keys in this build's spelling with them (a
  // row written before a knob existed reads with the knob's default). qtune's commands and runtime
  // pass search_space's (runtime/key_validators.h); opaque_keys() reads and copies keys as stored.
  static TuningDb open(const std::string& path, OpenMode mode, KeyValidators validators);

  TuningDb(TuningDb&&) noexcept;
  TuningDb& operator=(TuningDb&&) noexcept;
  ~TuningDb() override;

  const std::string& path() const;
  bool read_only() const;
  int schema_version() const;

  // The validators it was opened with.
  const KeyValidators& validators() const;

  // --- writing -------------------------------------------------------------------------------
  // Also marks the sessions of killed processes 'interrupted' when no other session process is
  // alive (src/session_lock.h); this object then counts as alive until it is destroyed.
  std::int64_t begin_session(const SessionInfo& info) override;
  void end_session(std::int64_t session_id, SessionStatus status) override;

  // Commits one measurement and returns its id. Fills an empty timestamp with now. An identical
  // measurement (same keys, timestamp and results) already present is not stored twice: its id
  // is returned. std::invalid_argument when the record is inconsistent (see check_record).
  std::int64_t add_measurement(const MeasurementRecord& record) override;

  // Adds all records in one transaction (all or nothing), each keeping its own source; records
  // already present (same keys, timestamp and results) are counted, not duplicated.
  TransferCounts add_measurements(const std::vector<MeasurementRecord>& records);

  // Merges every session and measurement of another qtune database (opened read-only) in one
  // transaction, keys copied as they were recorded there. Idempotent: merging the same file again
  // adds nothing.
  TransferCounts merge_from(const std::string& other_path);

  // --- reading -------------------------------------------------------------------------------
  // best() (tuning_records.h) is the pair's best configuration (best_selection.h: the least median
  // over its correct measurements); errors are never best.
  // Best per (workload, target) among the measurements matching the filter, ordered by workload
  // key then target key.
  std::vector<BestRecord> all_best(const MeasurementFilter& filter = {}) const override;
  // Matching measurements in insertion order (for one target: transfer learning across shapes).
  std::vector<MeasurementRecord> measurements(const MeasurementFilter& filter = {}) const override;
  // These two (and MeasurementFilter::config_key) compare configuration keys as stored: a row
  // written before a knob existed matches only its older spelling.
  bool has_measured(const std::string& workload_key, const std::string& target_key,
                    const std::string& config_key) const;
  std::vector<std::string> measured_configs(const std::string& workload_key, const std::string& target_key) const;

  std::vector<TargetSummary> targets() const;
  std::vector<WorkloadSummary> workloads(const MeasurementFilter& filter = {}) const;
  std::vector<SessionRecord> sessions() const;
  std::optional<SessionRecord> session(std::int64_t session_id) const;
  // Trials of a session in measurement order, optionally of one workload only.
  std::vector<TrialPoint> tuning_curve(std::int64_t session_id,
                                       const std::optional<std::string>& workload_key = std::nullopt) const;

  // PRAGMA integrity_check: "ok" or SQLite's list of problems.
  std::string integrity_check() const;

 private:
  struct Impl;
  explicit TuningDb(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qtune::records
