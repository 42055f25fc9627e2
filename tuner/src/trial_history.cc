#include "qtune/tuner/trial_history.h"

#include <algorithm>
#include <functional>

namespace qtune {

void TrialHistory::add(Config config, std::optional<double> gops, bool disturbed) {
  auto [it, inserted] = index_.try_emplace(config.key(), observations_.size());
  if (inserted) {
    observations_.push_back(Observation{std::move(config), std::nullopt});
    samples_.emplace_back();
  }
  if (!gops) return;
  std::vector<Sample>& samples = samples_[it->second];
  samples.push_back({*gops, disturbed});
  // As records/best_selection.h: disturbed samples count only without an undisturbed one.
  const bool any_undisturbed = std::any_of(samples.begin(), samples.end(), [](const Sample& s) { return !s.disturbed; });
  std::vector<double> sorted;
  for (const Sample& s : samples) {
    if (!any_undisturbed || !s.disturbed) sorted.push_back(s.gops);
  }
  // The lower median of the times is the upper median of the throughputs.
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  observations_[it->second].gops = sorted[(sorted.size() - 1) / 2];
}

std::size_t TrialHistory::samples(const Config& config) const {
  const auto it = index_.find(config.key());
  return it == index_.end() ? 0 : samples_[it->second].size();
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
