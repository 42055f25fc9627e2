#include "qtune/records/transfer.h"

#include <ostream>

#include "qtune/records/best_selection.h"

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

ImportReport import_logs(TuningDb& db, const std::vector<std::string>& paths, bool skip_invalid) {
  // Read and check everything before writing anything: the import is all or nothing.
  return import_checked_logs(db, read_logs_for_import(paths, db.validators(), skip_invalid));
}

namespace {

// The best measurement per (workload, target), followed, where it is a library's, by the best of
// qtune's kernels ("qtune"): ordered by workload, target and time.
std::vector<MeasurementRecord> best_with_own_runner_up(const TuningRecords& records, MeasurementFilter filter,
                                                       const CandidateKindFn& kind) {
  filter.correct_only = true;
  const std::vector<KindRecord> bests = select_best_of_each_kind(records.measurements(filter), kind);
  const auto same_pair = [](const MeasurementRecord& a, const MeasurementRecord& b) {
    return a.workload_key == b.workload_key && a.target_key == b.target_key;
  };
  std::vector<MeasurementRecord> lines;
  for (std::size_t i = 0; i < bests.size(); ++i) {
    if (i != 0 && same_pair(bests[i].best, bests[i - 1].best)) continue;  // not the pair's best
    lines.push_back(bests[i].best);
    if (bests[i].kind == "qtune") continue;
    // The pair's best is a library's: its best own configuration follows, wherever it sorts.
    for (std::size_t j = i + 1; j < bests.size() && same_pair(bests[j].best, bests[i].best); ++j) {
      if (bests[j].kind == "qtune") {
        lines.push_back(bests[j].best);
        break;
      }
    }
  }
  return lines;
}

}  // namespace

std::size_t export_log(const TuningRecords& records, std::ostream& out, ExportSelection selection,
                       const std::optional<std::string>& target_key, const CandidateKindFn& kind) {
  MeasurementFilter filter;
  filter.target_key = target_key;
  std::size_t lines = 0;
  if (selection == ExportSelection::best && kind) {
    for (const MeasurementRecord& m : best_with_own_runner_up(records, filter, kind)) {
      out << to_log_line(m) << '\n';
      ++lines;
    }
  } else if (selection == ExportSelection::best) {
    for (const auto& b : records.all_best(filter)) {
      out << to_log_line(b.measurement) << '\n';
      ++lines;
    }
  } else {
    for (const auto& m : records.measurements(filter)) {
      out << to_log_line(m) << '\n';
      ++lines;
    }
  }
  out.flush();
  if (!out) throw std::runtime_error("cannot write the log (disk full or closed output?)");
  return lines;
}

}  // namespace qtune::records
