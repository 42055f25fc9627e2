// Timing cases at several placements in memory. Where a layer's buffers and prepared weights land
// (which cache sets, which pages) moves its time between two runs of one database by up to a fifth
// on small depthwise layers, more than the differences `qtune run` judges; a run that saw one
// placement reported verdicts the next run did not repeat. So each placement is made anew (inputs,
// outputs and prepared kernels allocated while the earlier placements are still held, so that they
// land elsewhere), the cases of all placements are timed as one interleaved set
// (time_interleaved_samples), and each case's samples are pooled over its placements: the median is over
// placements and the quartiles show their spread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "qtune/evaluation/interleaved_timing.h"
#include "qtune/measure/placed_bytes.h"

namespace qtune::evaluation {

// How many placements `qtune run` times each layer at, at most (docs/measurement-protocol.md
// "Placements").
inline constexpr int kPlacements = 8;

// How `repetitions` repetitions in all are shared: one placement per repetition up to
// max_placements, and as many repetitions at each as it takes to reach `repetitions`.
struct PlacementShare {
  int placements = 1, repetitions_each = 1;
  int samples() const { return placements * repetitions_each; }
};
PlacementShare share_among_placements(int repetitions, int max_placements = kPlacements);

// `place` makes one placement and returns its cases (the same cases, in the same order, each
// time); a case's function owns what it touches. Returns, per case, the pooled timing of the
// placements of share_among_placements(repetitions, max_placements); every placement stays alive
// until the last is timed.
std::vector<CaseTiming> time_at_placements(const std::function<std::vector<TimedCase>()>& place, int repetitions,
                                           unsigned seed, int threads, CacheState cache,
                                           int max_placements = kPlacements);

}  // namespace qtune::evaluation
