#include "qtune/tuner/grid_strategy.h"

namespace qtune {

GridStrategy::GridStrategy(const KnobSpace& space) : order_(space.enumerate()) {}

std::vector<Config> GridStrategy::propose(const TrialHistory& history, std::size_t count) {
  std::vector<Config> batch;
  while (batch.size() < count && next_ < order_.size()) {
    const Config& candidate = order_[next_++];
    if (!history.contains(candidate)) batch.push_back(candidate);
  }
  return batch;
}

}  // namespace qtune
