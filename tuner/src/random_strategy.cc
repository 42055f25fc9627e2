#include "qtune/tuner/random_strategy.h"

namespace qtune {

RandomStrategy::RandomStrategy(const KnobSpace& space, std::uint64_t seed) : order_(space, seed) {}

std::vector<Config> RandomStrategy::propose(const TrialHistory& history, std::size_t count) {
  std::vector<Config> batch;
  while (batch.size() < count) {
    auto next = order_.next([&](const Config& c) { return history.contains(c); });
    if (!next) break;
    batch.push_back(std::move(*next));
  }
  return batch;
}

}  // namespace qtune
