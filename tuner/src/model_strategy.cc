#include "qtune/tuner/model_strategy.h"

#include <algorithm>

namespace qtune {

ModelStrategy::ModelStrategy(const KnobSpace& space, CostModel model, std::vector<double> shape, std::uint64_t seed,
                             ModelStrategyOptions options, std::vector<Config> first)
    : space_(space),
      model_(std::move(model)),
      shape_(std::move(shape)),
      options_(options),
      first_(std::move(first)),
      rng_(seed),
      // A different stream from rng_ so exploration does not shift with the annealing's draws.
      random_(space, seed ^ 0x9e3779b97f4a7c15ull) {
  // Candidates from elsewhere that this space cannot run are dropped rather than annealed from.
  std::erase_if(first_, [&](const Config& c) { return !space_.check(c).empty(); });
}

std::vector<Config> ModelStrategy::propose(const TrialHistory& history, std::size_t count) {
  std::vector<Config> batch;
  auto taken = [&](const Config& c) { return history.contains(c) || proposed_.count(c.key()) != 0; };
  auto take = [&](const Config& c) {
    proposed_.insert(c.key());
    batch.push_back(c);
  };

  while (batch.size() < count && next_first_ < first_.size()) {
    const Config& c = first_[next_first_++];
    if (!taken(c)) take(c);
  }

  const bool model_ready = history.size() >= options_.warmup || model_.prior_samples() > 0;
  if (batch.size() < count && model_ready) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::size_t exploit = 0;
    for (std::size_t slot = batch.size(); slot < count; ++slot) exploit += unit(rng_) < options_.epsilon ? 0 : 1;
    if (exploit > 0) {
      model_.fit(shape_, history.observations());
      std::vector<const Observation*> measured;
      for (const auto& o : history.observations()) {
        if (o.gops) measured.push_back(&o);
      }
      std::sort(measured.begin(), measured.end(),
                [](const Observation* a, const Observation* b) { return *a->gops > *b->gops; });
      std::vector<Config> starts;
      for (std::size_t i = 0; i < measured.size() && i < options_.best_starts; ++i) starts.push_back(measured[i]->config);
      for (const auto& c : first_) starts.push_back(c);
      for (std::size_t i = 0; i < options_.random_starts; ++i) starts.push_back(space_.sample(rng_));
      auto score = [&](const Config& c) { return model_.predict(c, shape_); };
      for (const auto& c : anneal(space_, starts, score, taken, exploit, rng_, options_.annealing)) take(c);
    }
  }

  while (batch.size() < count) {
    auto next = random_.next(taken);
    if (!next) break;
    take(*next);
  }
  return batch;
}

}  // namespace qtune
