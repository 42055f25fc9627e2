#include "qtune/records/transfer.h"

#include <ostream>

namespace qtune::records {

CheckedLogs read_logs_for_import(const std::vector<std::string>& paths, const KeyValidators& validators,
                                 bool skip_invalid) {
  CheckedLogs logs;
  std::vector<LogProblem> problems;
  for (const auto& path : paths) {
    LogReadResult file = read_log_file(path, validators);
    logs.report.lines_read += file.records.size();
    logs.report.skipped_lines += file.invalid_lines;
    for (auto& r : file.records) logs.records.push_back(std::move(r));
    for (auto& p : file.problems) problems.push_back(std::move(p));
  }
  if (!problems.empty() && !skip_invalid) throw LogError(std::move(problems));
  logs.report.skipped = std::move(problems);
  return logs;
}

ImportReport import_checked_logs(TuningDb& db, CheckedLogs logs) {
  logs.report.counts = db.add_measurements(logs.records);
  return std::move(logs.report);
}

ImportReport import_logs(TuningDb& db, const std::vector<std::string>& paths, const KeyValidators& validators,
                         bool skip_invalid) {
  // Read and check everything before writing anything: the import is all or nothing.
  return import_checked_logs(db, read_logs_for_import(paths, validators, skip_invalid));
}

std::size_t export_log(const TuningDb& db, std::ostream& out, ExportSelection selection,
                       const std::optional<std::string>& target_key) {
  MeasurementFilter filter;
  filter.target_key = target_key;
  std::size_t lines = 0;
  if (selection == ExportSelection::best) {
    for (const auto& b : db.all_best(filter)) {
      out << to_log_line(b.measurement) << '\n';
      ++lines;
    }
  } else {
    for (const auto& m : db.measurements(filter)) {
      out << to_log_line(m) << '\n';
      ++lines;
    }
  }
  out.flush();
  if (!out) throw std::runtime_error("cannot write the log (disk full or closed output?)");
  return lines;
}

}  // namespace qtune::records
