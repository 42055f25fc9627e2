#include "qtune/records/transfer.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <tuple>

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

ImportReport import_logs(TuningDb& db, const std::vector<std::string>& paths, const KeyValidators& validators,
                         bool skip_invalid) {
  // Read and check everything before writing anything: the import is all or nothing.
  return import_checked_logs(db, read_logs_for_import(paths, validators, skip_invalid));
}

namespace {

// The best measurement per (workload, target), followed, where it is a library's, by the best of
// qtune's kernels ("qtune"): ordered by workload, target and time.
std::vector<MeasurementRecord> best_with_own_runner_up(const TuningDb& db, MeasurementFilter filter,
                                                       const CandidateKindFn& kind) {
  filter.correct_only = true;
  std::map<std::string, std::vector<MeasurementRecord>> by_kind;
  for (MeasurementRecord& m : db.measurements(filter)) by_kind[kind(m.config_key)].push_back(std::move(m));
  std::vector<std::pair<std::string, MeasurementRecord>> bests;  // (kind, best of that kind)
  for (const auto& [name, of_kind] : by_kind) {
    for (MeasurementRecord& m : select_best(of_kind)) bests.emplace_back(name, std::move(m));
  }
  std::stable_sort(bests.begin(), bests.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.workload_key, a.second.target_key, a.second.stats->median_ns) <
           std::tie(b.second.workload_key, b.second.target_key, b.second.stats->median_ns);
  });
  std::vector<MeasurementRecord> lines;
  for (std::size_t i = 0; i < bests.size(); ++i) {
    const bool first = i == 0 || bests[i].second.workload_key != bests[i - 1].second.workload_key ||
                       bests[i].second.target_key != bests[i - 1].second.target_key;
    if (first) {
      lines.push_back(bests[i].second);
      // The pair's best is a library's: its best own configuration follows, wherever it sorts.
      if (bests[i].first == "qtune") continue;
      for (std::size_t j = i + 1; j < bests.size() && bests[j].second.workload_key == lines.back().workload_key &&
                                  bests[j].second.target_key == lines.back().target_key;
           ++j) {
        if (bests[j].first == "qtune") {
          lines.push_back(bests[j].second);
          break;
        }
      }
    }
  }
  return lines;
}

}  // namespace

std::size_t export_log(const TuningDb& db, std::ostream& out, ExportSelection selection,
                       const std::optional<std::string>& target_key, const CandidateKindFn& kind) {
  MeasurementFilter filter;
  filter.target_key = target_key;
  std::size_t lines = 0;
  if (selection == ExportSelection::best && kind) {
    for (const MeasurementRecord& m : best_with_own_runner_up(db, filter, kind)) {
      out << to_log_line(m) << '\n';
      ++lines;
    }
  } else if (selection == ExportSelection::best) {
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
