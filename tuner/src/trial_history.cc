#include "qtune/tuner/trial_history.h"

namespace qtune {

void TrialHistory::add(Config config, std::optional<double> gops) {
  auto [it, inserted] = index_.try_emplace(config.key(), observations_.size());
  if (inserted) {
    observations_.push_back(Observation{std::move(config), gops});
  } else {
    observations_[it->second].gops = gops;
  }
}

const Observation* TrialHistory::best() const {
  const Observation* best = nullptr;
  for (const auto& o : observations_) {
    if (o.gops && (!best || *o.gops > *best->gops)) best = &o;
  }
  return best;
}

std::size_t TrialHistory::successes() const {
  std::size_t n = 0;
  for (const auto& o : observations_) n += o.gops.has_value() ? 1 : 0;
  return n;
}

}  // namespace qtune
