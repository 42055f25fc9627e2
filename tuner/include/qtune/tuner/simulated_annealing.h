// Simulated annealing over a space, maximizing a cheap score (the cost model's prediction): how the
// model-guided strategy turns a model into proposals without enumerating the space.
#pragma once

#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include "qtune/search_space/knob_space.h"

namespace qtune {

struct AnnealingOptions {
  int steps = 64;                   // moves per chain
  double start_temperature = 0.3;   // in score units (log-ratios: 0.3 ~ accepting 26% slower often)
  double end_temperature = 0.005;   // cooled geometrically from start to end
};

// One chain per start: a walk over neighbours (one knob changed) that accepts a worse neighbour
// with probability exp(delta / T). Returns up to `count` distinct configurations among all visited
// ones that `excluded` does not reject, highest score first (ties in visiting order).
std::vector<Config> anneal(const KnobSpace& space, const std::vector<Config>& starts,
                           const std::function<double(const Config&)>& score,
                           const std::function<bool(const Config&)>& excluded, std::size_t count,
                           std::mt19937_64& rng, const AnnealingOptions& options = {});

}  // namespace qtune
