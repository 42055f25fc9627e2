// Replaying a strategy against a fully measured space: how strategies are compared fairly (same
// ground truth, many seeds, no timing noise) by the strategy benchmark and the tests.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

#include "qtune/tuner/strategy.h"

namespace qtune {

// Ground truth of one task: GOP/s of every configuration of its space by config key (nullopt:
// the configuration fails).
using MeasuredTable = std::unordered_map<std::string, std::optional<double>>;

// The best GOP/s of the table; 0 when nothing in it succeeds.
double best_gops(const MeasuredTable& table);

// Runs `strategy` from an empty history in batches of `batch`, answering from `table`, and returns
// the 1-based trial at which a configuration within `tolerance` (0.05 = 5%) of the table's best
// was first measured; nullopt if that does not happen within `max_trials` or before the strategy
// stops proposing. Proposals missing from the table count as failures.
std::optional<std::size_t> trials_to_reach(Strategy& strategy, const MeasuredTable& table, double tolerance,
                                           std::size_t batch, std::size_t max_trials);

}  // namespace qtune
