#include "qtune/reports/candidate_kinds.h"

#include <algorithm>

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
  // One record per kind (a layer on one target), fastest first.
  const std::vector<records::KindRecord> bests = records::select_best_of_each_kind(
      layer_measurements, [](const records::MeasurementRecord& m) { return candidate_kind(m.config_key); });
  if (bests.size() < 2) return std::nullopt;
  const auto best_of = [](const records::KindRecord& k) {
    return KindBest{k.kind, k.best.config_key, k.best.stats->median_ns};
  };
  return KindMargin{best_of(bests[0]), best_of(bests[1])};
}

std::string format_kind_margin(const std::optional<KindMargin>& margin) {
  return margin ? margin->winner.kind + " " + format_speedup(margin->margin()) : "-";
}

}  // namespace qtune::reports
