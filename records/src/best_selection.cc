#include "qtune/records/best_selection.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace qtune::records {

std::vector<MeasurementRecord> select_best(const std::vector<MeasurementRecord>& records) {
  // (workload, target) -> config -> positions of its correct measurements in `records`.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const MeasurementRecord& r = records[i];
    if (!r.correct() || !r.stats) continue;
    groups[{r.workload_key, r.target_key}][r.config_key].push_back(i);
  }
  // Earlier first: a smaller database id, then an earlier place in the input.
  auto earlier = [&](std::size_t a, std::size_t b) { return std::tie(records[a].id, a) < std::tie(records[b].id, b); };
  std::vector<MeasurementRecord> best;
  for (auto& [pair, configs] : groups) {
    std::optional<std::size_t> winner;
    for (auto& [config, positions] : configs) {
      const bool any_undisturbed =
          std::any_of(positions.begin(), positions.end(), [&](std::size_t i) { return !records[i].disturbed(); });
      if (any_undisturbed) std::erase_if(positions, [&](std::size_t i) { return records[i].disturbed(); });
      std::sort(positions.begin(), positions.end(), [&](std::size_t a, std::size_t b) {
        const double ta = records[a].stats->median_ns, tb = records[b].stats->median_ns;
        return ta != tb ? ta < tb : earlier(a, b);
      });
      const std::size_t median = positions[(positions.size() - 1) / 2];
      if (!winner) {
        winner = median;
        continue;
      }
      const double t = records[median].stats->median_ns, best_t = records[*winner].stats->median_ns;
      if (t < best_t || (t == best_t && earlier(median, *winner))) winner = median;
    }
    best.push_back(records[*winner]);
  }
  return best;
}

std::vector<KindRecord> select_best_of_each_kind(const std::vector<MeasurementRecord>& records,
                                                 const CandidateKindFn& kind) {
  std::map<std::string, std::vector<MeasurementRecord>> by_kind;
  for (const MeasurementRecord& m : records) by_kind[kind(m)].push_back(m);
  std::vector<KindRecord> bests;
  for (const auto& [name, of_kind] : by_kind) {
    for (MeasurementRecord& m : select_best(of_kind)) bests.push_back({name, std::move(m)});
  }
  std::stable_sort(bests.begin(), bests.end(), [](const KindRecord& a, const KindRecord& b) {
    return std::tie(a.best.workload_key, a.best.target_key, a.best.stats->median_ns) <
           std::tie(b.best.workload_key, b.best.target_key, b.best.stats->median_ns);
  });
  return bests;
}

}  // namespace qtune::records
