// A network's layers evaluated in order (layer_evaluation.h) with the configurations a runtime
// picks, and the totals `qtune run` reports: each layer weighted by its count, against the untuned
// default, oneDNN on the layers it can express, and the best of qtune's kernels and the libraries.
// With a tuning database the tuning's own view of each layer joins this run's: which kind won its
// tuning and by how much, and the recorded default/tuned ratio that anchors the verdict.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qtune/evaluation/layer_evaluation.h"
#include "qtune/records/network_runs.h"
#include "qtune/records/tuning_records.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/workload.h"

namespace qtune::evaluation {

struct NetworkEvaluationOptions {
  int repetitions = 5;  // per layer and implementation (LayerTiming)
  CacheState cache = CacheState::warm;
  WeightDistribution weights = WeightDistribution::trained;  // for layers without their own (LayerTiming)
  // The tuning database the runtime's configurations came from, or null: each layer's kind margin
  // and recorded default/tuned ratio are read from it, for the runtime's target.
  const records::TuningRecords* database = nullptr;
  // The network's name in the stored timings (records::NetworkRunRecord::network).
  std::string network_name;
  // Called after each layer, in order, with its index and result: a progress printer, or a peer
  // that times its own round between qtune's layers (onnxruntime_comparison.h).
  std::function<void(std::size_t, const LayerEvaluation&)> after_layer;
};

// Sums over the layers, each weighted by its count; quartiles add up the layers' (a conservative
// spread).
struct NetworkTotals {
  CaseTiming tuned{0, 0, 0, 0}, untuned{0, 0, 0, 0};
  CaseTiming onednn{0, 0, 0, 0}, tuned_where_onednn{0, 0, 0, 0};  // over the layers oneDNN ran
  std::size_t onednn_layers = 0, onednn_dropped_layers = 0;
  // oneDNN's int32 dot products against the exact ones (LayerEvaluation::onednn_checked): the layers
  // checked, those with any difference, and the int32 sums compared and differing, weighted by count.
  std::size_t onednn_checked_layers = 0, onednn_inexact_layers = 0;
  std::int64_t onednn_checked_sums = 0, onednn_mismatched_sums = 0;
  // The faster of tuned and the other kind's candidate per layer (the tuned time where the other
  // did not run), the layers where the other kind ran, and those where it was faster ("name (x)").
  double best_of_kinds_ns = 0;
  std::size_t other_kind_layers = 0;
  std::vector<std::string> behind_other_kind;
  std::size_t retimed_layers = 0;             // timed again because other processes held the CPU
  std::vector<std::string> disturbed_layers;  // still so after the retries
  std::vector<std::string> close_calls;       // timed again on a larger sample (timing_verdict.h)
};

struct NetworkEvaluation {
  std::vector<LayerEvaluation> layers;  // in the network's order
  NetworkTotals totals;
  // Every layer's timings as rows of the database's network_runs table (`qtune report`): tuned,
  // default and oneDNN where it ran, under one run id; they belong to this machine, whichever
  // target's tuning results were used.
  std::string run_uid;
  std::vector<records::NetworkRunRecord> run_rows;
};

// `values`: each layer's own weights and quantization (a model's, model_layer_values.h), one per
// layer in order, or empty to draw them for each workload. Throws std::runtime_error where two
// implementations of a layer disagree.
NetworkEvaluation evaluate_network(const WorkloadFile& network, const std::vector<LayerValues>& values,
                                   const runtime::Runtime& rt, const NetworkEvaluationOptions& options);

// Adds a layer's timing, `count` times, to a total (median, quartiles: a conservative spread).
void accumulate(CaseTiming& total, const CaseTiming& layer, int count);

// The rounding modes of the network's layers other than fp32 (oneDNN's int8 math), in name order.
std::vector<std::string> integer_rounding_modes(const WorkloadFile& network);

}  // namespace qtune::evaluation
