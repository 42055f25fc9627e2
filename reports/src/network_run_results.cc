#include "network_run_results.h"

#include <map>

namespace qtune::reports {

void attach_network_runs(std::vector<LayerReport>& layers, const std::vector<records::NetworkRunRecord>& runs) {
  // Insertion order is time order: the last row of a layer belongs to its latest run.
  std::map<std::string, std::string> latest_run;  // workload key -> run uid
  for (const auto& r : runs) latest_run[r.workload_key] = r.run_uid;
  for (auto& layer : layers) {
    auto it = latest_run.find(layer.workload_key);
    if (it == latest_run.end()) continue;
    layer.run_uid = it->second;
    for (const auto& r : runs) {
      if (r.workload_key != layer.workload_key || r.run_uid != it->second) continue;
      const ConfigTiming timing{r.config_key, r.median_ns, r.gops};
      if (r.impl == records::kImplTuned) layer.run_tuned = timing;
      if (r.impl == records::kImplDefault) layer.run_default = timing;
      if (r.impl == records::kImplOneDnn) layer.onednn = timing;
    }
  }
}

}  // namespace qtune::reports
