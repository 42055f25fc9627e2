#include "network_run_results.h"

#include <map>

#include "qtune/measure/timing_verdict.h"

namespace qtune::reports {
namespace {

// The row's median and quartiles; no repetitions (so no verdict) where they were not stored.
CaseTiming spread_of(const records::NetworkRunRecord& r) {
  if (!r.low_ns || !r.high_ns || !r.repetitions) return {r.median_ns, r.median_ns, r.median_ns, 0};
  return {r.median_ns, *r.low_ns, *r.high_ns, static_cast<int>(*r.repetitions)};
}

}  // namespace

void attach_network_runs(std::vector<LayerReport>& layers, const std::vector<records::NetworkRunRecord>& runs) {
  // Insertion order is time order: the last row of a layer belongs to its latest run.
  std::map<std::string, std::string> latest_run;  // workload key -> run uid
  for (const auto& r : runs) latest_run[r.workload_key] = r.run_uid;
  for (auto& layer : layers) {
    auto it = latest_run.find(layer.workload_key);
    if (it == latest_run.end()) continue;
    layer.run_uid = it->second;
    std::optional<CaseTiming> tuned, untuned, onednn;
    for (const auto& r : runs) {
      if (r.workload_key != layer.workload_key || r.run_uid != it->second) continue;
      const ConfigTiming timing{r.config_key, r.median_ns, r.gops};
      if (r.impl == records::kImplTuned) layer.run_tuned = timing, tuned = spread_of(r);
      if (r.impl == records::kImplDefault) layer.run_default = timing, untuned = spread_of(r);
      if (r.impl == records::kImplOneDnn) layer.onednn = timing, onednn = spread_of(r);
      layer.run_cache = r.cache;  // one per run
      layer.run_disturbed = layer.run_disturbed || r.disturbed.value_or(false);
    }
    // As `qtune run` says it: one configuration timed twice is the same, never a win or a loss; two
    // configurations the database compared itself, anchored on that comparison (anchored_verdict).
    if (tuned && untuned) {
      std::optional<double> recorded;
      if (layer.tuned && layer.untuned && layer.tuned->config_key == layer.run_tuned->config_key &&
          layer.untuned->config_key == layer.run_default->config_key && layer.tuned->median_ns > 0) {
        recorded = layer.untuned->median_ns / layer.tuned->median_ns;
      }
      layer.run_vs_default = layer.run_tuned->config_key == layer.run_default->config_key
                                 ? "same"
                                 : anchored_verdict(*tuned, *untuned, recorded);
    }
    if (tuned && onednn) layer.run_vs_onednn = verdict(*tuned, *onednn);
  }
}

}  // namespace qtune::reports
