// Model-guided search: a cost model (gradient-boosted trees) is refitted on everything measured so
// far, simulated annealing searches its predictions from the best measured configurations and from
// random starts, and the batch takes the best predicted unmeasured configurations, with a share of
// random ones (epsilon-greedy) so the model keeps learning where it is unsure.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "qtune/tuner/cost_model.h"
#include "qtune/tuner/random_order.h"
#include "qtune/tuner/simulated_annealing.h"
#include "qtune/tuner/strategy.h"

namespace qtune {

struct ModelStrategyOptions {
  std::size_t warmup = 8;         // random trials before the model is trusted (without priors)
  double epsilon = 0.1;           // probability that a batch slot is spent on a random configuration
  std::size_t best_starts = 4;    // annealing chains started from the best measured configurations
  std::size_t random_starts = 8;  // and from random configurations
  AnnealingOptions annealing;
};

class ModelStrategy final : public Strategy {
 public:
  // `model` may already hold priors (measurements of similar workloads); `shape` holds the shape
  // features of this task's workload. `first` are tried before anything else (transfer: the best
  // configurations of similar tuned shapes, already adapted to `space`).
  ModelStrategy(const KnobSpace& space, CostModel model, std::vector<double> shape, std::uint64_t seed,
                ModelStrategyOptions options = {}, std::vector<Config> first = {});

  std::string_view name() const override { return "model"; }
  std::vector<Config> propose(const TrialHistory& history, std::size_t count) override;

  const CostModel& model() const { return model_; }

 private:
  KnobSpace space_;
  CostModel model_;
  std::vector<double> shape_;
  ModelStrategyOptions options_;
  std::vector<Config> first_;
  std::size_t next_first_ = 0;
  std::mt19937_64 rng_;
  RandomOrder random_;
  std::unordered_set<std::string> proposed_;
};

}  // namespace qtune
