#include "qtune/evaluation/onnxruntime_comparison.h"

#include "qtune/evaluation/network_evaluation.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace qtune::evaluation {
void time_onnxruntime_after_layer(OnnxRuntimePeer& peer, std::size_t layer, std::size_t layers, int runs) {
  const auto share = [&](std::size_t i) { return static_cast<int>(i * static_cast<std::size_t>(runs) / layers); };
  const int now = share(layer + 1) - share(layer);
  if (now <= 0) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  peer.time_round(now, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

OnnxRuntimeComparison compare_with_onnxruntime(const std::vector<OnnxRuntimeSamples>& samples, const std::string& version,
                                               const std::vector<LayerEvaluation>& results,
                                               const std::vector<LayerValues>& values) {
  OnnxRuntimeComparison out;
  out.version = version;
  std::vector<LayerNodes> nodes;
  for (std::size_t i = 0; i < results.size() && i < values.size(); ++i) nodes.push_back({results[i].name, values[i].onnx_nodes});
  for (const auto& s : samples) out.runs.push_back(layer_timings(s, nodes));
  out.tuned_total.repetitions = results.empty() ? 0 : results.front().tuned.repetitions;
  out.onnxruntime_totals.assign(out.runs.size(), CaseTiming{0, 0, 0, 0});
  for (const LayerEvaluation& r : results) {
    OnnxRuntimeLayer line{r.name, r.count, r.tuned, {}};
    for (std::size_t i = 0; i < out.runs.size(); ++i) {
      const auto it = out.runs[i].layers.find(r.name);
      if (it == out.runs[i].layers.end()) {
        line.onnxruntime.emplace_back();
        continue;
      }
      accumulate(out.onnxruntime_totals[i], it->second, r.count);
      line.onnxruntime.emplace_back(it->second);
    }
    if (std::none_of(line.onnxruntime.begin(), line.onnxruntime.end(), [](const auto& t) { return t.has_value(); }))
      continue;
    accumulate(out.tuned_total, r.tuned, r.count);
    out.layers.push_back(std::move(line));
  }
  return out;
}

}  // namespace qtune::evaluation
