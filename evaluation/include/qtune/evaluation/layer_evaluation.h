// One layer of a network evaluated on this machine: the runtime's choice (tuned, nearest tuned
// shape or default), the untuned default, the best candidate of the other kind
// (other_kind_candidate.h) and oneDNN where it can express the layer, all on the same data, prepared
// first and then timed interleaved at several placements in memory (placement_timing.h), again
// while the machine was disturbed (undisturbed_timing.h). Every implementation's output is
// compared: a disagreement is an error, never a timing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qtune/evaluation/interleaved_timing.h"
#include "qtune/evaluation/other_kind_candidate.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/measure/drawn_weights.h"
#include "qtune/kernels/gemm.h"
#include "qtune/measure/cache_state.h"
#include "qtune/reports/candidate_kinds.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/disturbance.h"

namespace qtune::evaluation {

// A layer's own weights and quantization (a model's) instead of values drawn for its workload.
struct LayerValues {
  GemmProblem gemm;
  Conv2dProblem conv;
  std::vector<std::int8_t> weights;  // K x N (gemm) or HWIO (conv)
  std::vector<std::int32_t> bias;    // empty when the layer has none
  std::vector<std::string> onnx_nodes;  // the ONNX nodes it stands for (for onnxruntime's per-node times)
};

struct LayerEvaluation {
  std::string name, description, workload_key;
  int count = 1;
  runtime::ConfigSource source = runtime::ConfigSource::heuristic;
  std::string computed_by = "qtune";  // what the runtime's choice runs on: qtune's kernels or a library
  std::optional<reports::KindMargin> won_by;  // qtune's kernels vs a library in the database's measurements
  std::string config_key, default_config_key, reason;
  CaseTiming tuned, untuned;
  std::optional<CaseTiming> onednn;
  std::string onednn_note;  // implementation, or why the peer was not run
  // The best candidate of the other kind, timed in the same run, and why it did not run where it
  // has no timing.
  std::optional<OtherKindCandidate> other_kind;
  std::optional<CaseTiming> other;
  std::string other_note;
  bool onednn_dropped = false;  // oneDNN ran the layer without what it cannot express (onednn_note)
  // oneDNN's int32 dot products on this layer's data against the exact ones
  // (libraries/onednn_exactness.h): how many were compared (0: not checked) and how many differ.
  std::int64_t onednn_checked = 0, onednn_mismatched = 0;
  std::optional<double> waiting_share;  // disturbance of the kept timing (undisturbed_timing.h)
  int retimed = 0;
  bool disturbed = false;
  int close_call_repetitions = 0;  // > 0: timed again with these repetitions (a close call)

  // The tuning database's comparison of the two: default time over tuned time (recorded_ratio).
  std::optional<double> recorded_ratio;

  // Tuned against the untuned default: one configuration is "same"; otherwise this run's verdict,
  // anchored on the database's where both are on record (timing_verdict.h: anchored_verdict).
  std::string verdict() const;
};

struct LayerTiming {
  int repetitions = 5;  // per implementation, shared among the placements (placement_timing.h)
  CacheState cache = CacheState::warm;
  DisturbancePolicy policy;
  WeightDistribution weights = WeightDistribution::trained;  // where the layer has none of its own
};

// `values`: the layer's own weights and quantization, or null to draw them for its workload (from
// timing.weights).
// `won_by`: the tuning's best of each kind for the layer, where it measured both. Throws
// std::runtime_error when two implementations disagree.
LayerEvaluation evaluate_layer(const runtime::Runtime& rt, const Layer& layer, const LayerTiming& timing,
                               const LayerValues* values, const std::optional<reports::KindMargin>& won_by);

}  // namespace qtune::evaluation
