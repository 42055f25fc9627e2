// The learned cost model: predicts how fast a configuration runs on a shape, from knob features
// and shape features. It is rank-oriented: the target is log(GOP/s relative to the best measured
// on the same workload), so workloads of very different absolute speed train one model, and the
// model only has to order configurations, not predict seconds. Failed configurations (wrong
// results, crashes, timeouts) are taught as very slow so the search steers away from them.
#pragma once

#include <cstddef>
#include <vector>

#include "qtune/search_space/knob_space.h"
#include "qtune/tuner/gradient_boosted_trees.h"
#include "qtune/tuner/trial_history.h"

namespace qtune {

// How much slower than the slowest success a failure is taught as.
inline constexpr double kFailureSlowdown = 4.0;

// Training targets for one workload's observations: log(gops / best); failures get
// log(slowest / best) - log(kFailureSlowdown), or -log(kFailureSlowdown) when nothing succeeded.
std::vector<double> relative_log_targets(const std::vector<Observation>& observations);

class CostModel {
 public:
  // `feature_space` fixes the knob feature layout; use the operator's full space so that
  // configurations of every shape share it.
  explicit CostModel(KnobSpace feature_space, GbtOptions options = {});

  std::vector<double> encode(const Config& config, const std::vector<double>& shape) const;

  // Keeps one workload's measurements as training data for every later fit (warm start from other
  // workloads). `weight` scales their influence against the task's own measurements (weight 1).
  void add_prior(const std::vector<double>& shape, const std::vector<Observation>& observations, double weight);
  std::size_t prior_samples() const { return prior_rows_.size(); }

  // Fits the priors plus the current task's observations (not kept).
  void fit(const std::vector<double>& shape, const std::vector<Observation>& observations);
  bool fitted() const { return model_.fitted(); }

  // Higher is faster (a log-ratio to the best, ~0 for the best configurations).
  double predict(const Config& config, const std::vector<double>& shape) const;

 private:
  KnobSpace feature_space_;
  GradientBoostedTrees model_;
  std::vector<std::vector<double>> prior_rows_;
  std::vector<double> prior_targets_, prior_weights_;
};

}  // namespace qtune
