#include "qtune/reports/candidate_kinds.h"

#include <algorithm>
#include <map>

#include "config_knobs.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/records/best_selection.h"
#include "qtune/reports/text_format.h"

namespace qtune::reports {

std::string candidate_kind(const std::string& config_key) {
  const std::optional<std::string> algo = knob_value(split_config_key(config_key), "algo");
  const auto& known = libraries::known_libraries();
  if (algo && std::find(known.begin(), known.end(), *algo) != known.end()) return *algo;
  return "qtune";
}

std::optional<KindMargin> kind_margin(const std::vector<records::MeasurementRecord>& layer_measurements) {
  std::map<std::string, std::vector<records::MeasurementRecord>> by_kind;
  for (const auto& m : layer_measurements) by_kind[candidate_kind(m.config_key)].push_back(m);
  std::vector<KindBest> bests;
  for (const auto& [kind, measurements] : by_kind) {
    const auto best = records::select_best(measurements);  // one record: a layer on one target
    if (!best.empty() && best.front().stats) bests.push_back({kind, best.front().config_key, best.front().stats->median_ns});
  }
  if (bests.size() < 2) return std::nullopt;
  std::stable_sort(bests.begin(), bests.end(), [](const KindBest& a, const KindBest& b) { return a.median_ns < b.median_ns; });
  return KindMargin{bests[0], bests[1]};
}

std::string format_kind_margin(const std::optional<KindMargin>& margin) {
  return margin ? margin->winner.kind + " " + format_speedup(margin->margin()) : "-";
}

}  // namespace qtune::reports
