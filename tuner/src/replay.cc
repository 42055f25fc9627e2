#include "qtune/tuner/replay.h"

#include <algorithm>

namespace qtune {

double best_gops(const MeasuredTable& table) {
  double best = 0;
  for (const auto& [key, gops] : table) {
    if (gops) best = std::max(best, *gops);
  }
  return best;
}

std::optional<std::size_t> trials_to_reach(Strategy& strategy, const MeasuredTable& table, double tolerance,
                                           std::size_t batch, std::size_t max_trials) {
  const double goal = best_gops(table) * (1.0 - tolerance);
  if (!(goal > 0)) return std::nullopt;
  TrialHistory history;
  while (history.size() < max_trials) {
    const auto proposals = strategy.propose(history, std::min(batch, max_trials - history.size()));
    if (proposals.empty()) return std::nullopt;
    for (const auto& config : proposals) {
      const auto it = table.find(config.key());
      const std::optional<double> gops = it == table.end() ? std::nullopt : it->second;
      history.add(config, gops);
      if (gops && *gops >= goal) return history.size();
    }
  }
  return std::nullopt;
}

}  // namespace qtune
