#include "qtune/records/transfer.h"

#include <ostream>

namespace qtune::records {

ImportReport import_logs(TuningDb& db, const std::vector<std::string>& paths, const KeyValidators& validators,
                         bool skip_invalid) {
  ImportReport report;
  std::vector<MeasurementRecord> records;
  std::vector<LogProblem> problems;
  // Read and check everything before writing anything: the import is all or nothing.
  for (const auto& path : paths) {
    LogReadResult file = read_log_file(path, validators);
    report.lines_read += file.records.size();
    report.skipped_lines += file.invalid_lines;
    for (auto& r : file.records) records.push_back(std::move(r));
    for (auto& p : file.problems) problems.push_back(std::move(p));
  }
  if (!problems.empty() && !skip_invalid) throw LogError(std::move(problems));
  report.skipped = std::move(problems);
  report.counts = db.add_measurements(records);
  return report;
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
