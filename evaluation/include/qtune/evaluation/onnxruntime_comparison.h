// A model's layers in qtune beside the same model in onnxruntime (onnxruntime_peer.h), from one
// run: onnxruntime's rounds are spread over the gaps between qtune's layers, and each layer's
// onnxruntime time is its nodes' kernel times (the profiler's) summed per run.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qtune/evaluation/layer_evaluation.h"
#include "qtune/evaluation/onnxruntime_peer.h"

namespace qtune::evaluation {

// Times onnxruntime's share of `runs` runs per thread count that falls after layer `layer` of
// `layers` (qtune, onnxruntime, qtune, ...), with a pause before and after: each side's idle
// workers spin for a while after a run, on the cores the other side needs next.
void time_onnxruntime_after_layer(OnnxRuntimePeer& peer, std::size_t layer, std::size_t layers, int runs);

struct OnnxRuntimeLayer {
  std::string name;
  int count = 1;
  CaseTiming tuned;
  std::vector<std::optional<CaseTiming>> onnxruntime;  // per thread count of the runs; none where no node ran
};

struct OnnxRuntimeComparison {
  std::string version;
  std::vector<OnnxRuntimeRun> runs;      // per thread count
  std::vector<OnnxRuntimeLayer> layers;  // the layers onnxruntime ran at some thread count
  // Over those layers, each weighted by its count.
  CaseTiming tuned_total{0, 0, 0, 0};
  std::vector<CaseTiming> onnxruntime_totals;  // per thread count
};

// `values[i]` names the ONNX nodes of `results[i]`.
OnnxRuntimeComparison compare_with_onnxruntime(const std::vector<OnnxRuntimeSamples>& samples, const std::string& version,
                                               const std::vector<LayerEvaluation>& results,
                                               const std::vector<LayerValues>& values);

}  // namespace qtune::evaluation
