#include "qtune/reports/summary_rows.h"

#include <map>

#include "qtune/reports/text_format.h"

namespace qtune::reports {

namespace {

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string coverage(std::size_t covered, std::size_t layers) {
  return covered == layers ? "all " + plural(layers, "layer") : std::to_string(covered) + " of " + plural(layers, "layer");
}

// The layers' latest `qtune run`s: in which cache state they were timed, the verdicts of tuned
// against default there, and how many stayed disturbed. Empty without any stored run.
std::string run_conditions(const std::vector<LayerReport>& layers) {
  std::map<std::string, std::size_t> caches, verdicts;
  std::size_t timed = 0, disturbed = 0;
  for (const auto& l : layers) {
    if (l.run_uid.empty()) continue;
    ++timed;
    ++caches[l.run_cache.empty() ? "not recorded (stored before schema 3)" : l.run_cache];
    ++verdicts[l.run_vs_default];
    if (l.run_disturbed) ++disturbed;
  }
  if (timed == 0) return "";
  std::string text = coverage(timed, layers.size()) + "; cache ";
  std::string list;
  for (const auto& [cache, n] : caches)
    list += (list.empty() ? "" : ", ") + (caches.size() == 1 ? cache : cache + " for " + std::to_string(n));
  text += list + "; tuned vs default:";
  for (const char* v : {"faster", "same", "slower", "-"}) {
    if (const auto it = verdicts.find(v); it != verdicts.end())
      text += std::string(" ") + (std::string(v) == "-" ? "no verdict" : v) + " " + std::to_string(it->second);
  }
  text += disturbed == 0 ? "; none disturbed" : "; " + std::to_string(disturbed) + " disturbed (a busy machine's times)";
  return text;
}

}  // namespace

std::string report_subject(const ReportData& data) { return data.network.empty() ? data.database : data.network; }

std::vector<SummaryRow> summary_rows(const ReportData& data) {
  const ReportSummary& s = data.summary;
  std::vector<SummaryRow> rows;
  rows.emplace_back("target", data.target_cpu.empty() ? data.target_key : data.target_cpu + " (" + data.target_arch + ")");

  std::map<std::string, int> strategies;
  for (const auto& session : data.sessions) ++strategies[session.strategy];
  std::string sessions = std::to_string(data.sessions.size());
  if (!strategies.empty()) {
    std::string list;
    for (const auto& [strategy, n] : strategies) list += (list.empty() ? "" : ", ") + std::to_string(n) + " " + strategy;
    sessions += " (" + list + ")";
  }
  rows.emplace_back("sessions", sessions);
  rows.emplace_back("layers tuned", std::to_string(s.layers_tuned) + " of " + std::to_string(s.layers));

  std::string trials = std::to_string(s.trials) + " (" + std::to_string(s.failures) + " failed";
  std::string kinds;
  for (const auto& [kind, n] : s.failure_kinds) kinds += (kinds.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  trials += kinds.empty() ? ")" : ": " + kinds + ")";
  rows.emplace_back("trials", trials);

  const std::string weighting = data.network.empty() && data.workloads_origin.empty()
                                    ? "each tuned workload once"
                                    : "layers weighted by their count in " +
                                          (data.workloads_origin.empty() ? data.network : data.workloads_origin);
  const NetworkTimes& t = s.untuned_vs_tuned;
  if (t.layers > 0) {
    const std::string over = " (" + coverage(t.layers, s.layers) + ", " + weighting + ")";
    rows.emplace_back("network time, untuned", format_time_ns(t.baseline_ns) + over);
    rows.emplace_back("network time, tuned", format_time_ns(t.tuned_ns) + over);
    rows.emplace_back("speedup over untuned", format_speedup(t.speedup()));
  } else {
    rows.emplace_back("network time", "no layer has both an untuned and a tuned timing yet");
  }
  if (s.onednn_vs_tuned) {
    const NetworkTimes& o = *s.onednn_vs_tuned;
    const std::string over = " (" + coverage(o.layers, s.layers) + " timed by qtune run)";
    rows.emplace_back("network time, oneDNN", format_time_ns(o.baseline_ns) + over);
    rows.emplace_back("network time, tuned (same layers)", format_time_ns(o.tuned_ns) + over);
    rows.emplace_back("speedup over oneDNN", format_speedup(o.speedup()));
  } else {
    rows.emplace_back("oneDNN", "not timed (qtune run --db stores oneDNN timings)");
  }
  if (const std::string runs = run_conditions(data.layers); !runs.empty()) rows.emplace_back("qtune run", runs);
  return rows;
}

}  // namespace qtune::reports
