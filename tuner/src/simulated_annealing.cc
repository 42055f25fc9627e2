#include "qtune/tuner/simulated_annealing.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

namespace qtune {

std::vector<Config> anneal(const KnobSpace& space, const std::vector<Config>& starts,
                           const std::function<double(const Config&)>& score,
                           const std::function<bool(const Config&)>& excluded, std::size_t count,
                           std::mt19937_64& rng, const AnnealingOptions& options) {
  struct Visited {
    Config config;
    double score;
    std::size_t order;
  };
  std::unordered_map<std::string, Visited> visited;
  std::unordered_map<std::string, std::vector<Config>> neighbour_cache;
  auto visit = [&](const Config& c) -> double {
    auto it = visited.find(c.key());
    if (it != visited.end()) return it->second.score;
    const double s = score(c);
    visited.emplace(c.key(), Visited{c, s, visited.size()});
    return s;
  };
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int steps = std::max(options.steps, 0);
  const double ratio = steps > 1 && options.start_temperature > 0 && options.end_temperature > 0
                           ? std::pow(options.end_temperature / options.start_temperature, 1.0 / (steps - 1))
                           : 1.0;

  for (const Config& start : starts) {
    Config current = start;
    double current_score = visit(current);
    double temperature = options.start_temperature;
    for (int step = 0; step < steps; ++step, temperature *= ratio) {
      auto cached = neighbour_cache.find(current.key());
      if (cached == neighbour_cache.end()) {
        cached = neighbour_cache.emplace(current.key(), space.neighbours(current)).first;
      }
      const auto& neighbours = cached->second;
      if (neighbours.empty()) break;
      const Config& next = neighbours[static_cast<std::size_t>(rng() % neighbours.size())];
      const double next_score = visit(next);
      const double delta = next_score - current_score;
      if (delta >= 0 || (temperature > 0 && unit(rng) < std::exp(delta / temperature))) {
        current = next;
        current_score = next_score;
      }
    }
  }

  std::vector<const Visited*> ranked;
  ranked.reserve(visited.size());
  for (const auto& [key, v] : visited) {
    if (!excluded(v.config)) ranked.push_back(&v);
  }
  std::sort(ranked.begin(), ranked.end(), [](const Visited* a, const Visited* b) {
    return a->score != b->score ? a->score > b->score : a->order < b->order;
  });
  std::vector<Config> best;
  for (std::size_t i = 0; i < ranked.size() && best.size() < count; ++i) best.push_back(ranked[i]->config);
  return best;
}

}  // namespace qtune
