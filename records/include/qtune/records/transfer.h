// Moving results between databases and logs: import (one transaction, idempotent), export of the
// best configurations or of every measurement, and merge of databases from several devices.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "qtune/records/best_selection.h"
#include "qtune/records/log_format.h"
#include "qtune/records/tuning_db.h"
#include "qtune/records/tuning_records.h"

namespace qtune::records {

struct ImportReport {
  TransferCounts counts;
  std::size_t lines_read = 0;               // valid lines over all files
  std::vector<LogProblem> skipped;          // problems of the lines left out (skip_invalid)
  std::size_t skipped_lines = 0;
};

// The valid lines of some logs, read and checked, ready to import.
struct CheckedLogs {
  std::vector<MeasurementRecord> records;
  ImportReport report;  // lines_read, skipped, skipped_lines; counts still zero
};

// Reads and checks every file; if any line is invalid and !skip_invalid, throws LogError listing
// every problem. Touches no database: `qtune import` reads first so that a rejected import does
// not leave a new, empty database file behind.
CheckedLogs read_logs_for_import(const std::vector<std::string>& paths, const KeyValidators& validators,
                                 bool skip_invalid);

// Adds the checked lines in one transaction.
ImportReport import_checked_logs(TuningDb& db, CheckedLogs logs);

// Both, the lines checked with the database's validators: reads every file first; if any line is
// invalid and !skip_invalid, throws LogError listing every problem and adds nothing. Otherwise all
// valid lines land in one transaction.
ImportReport import_logs(TuningDb& db, const std::vector<std::string>& paths, bool skip_invalid);

enum class ExportSelection { best, all };

// Writes one line per best (workload, target), or one per measurement, optionally for one target.
// With `kind`, a best line that is a library's is followed by the best line of qtune's kernels
// ("qtune") for the same workload and target, which a runtime without that library runs
// (Runtime::from_log); a reader that keeps one line per workload still finds the best by time.
// Returns the number of lines written.
std::size_t export_log(const TuningRecords& records, std::ostream& out, ExportSelection selection,
                       const std::optional<std::string>& target_key, const CandidateKindFn& kind = {});

}  // namespace qtune::records
