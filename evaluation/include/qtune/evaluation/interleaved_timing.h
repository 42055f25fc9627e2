// Timing several implementations of one layer so that they can be compared: the repetitions of
// all cases run interleaved in a random order (a slow phase of a shared machine hits every case
// alike, as in `qtune bench`), and each case reports its median and spread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qtune/measure/cache_state.h"
#include "qtune/measure/timing_verdict.h"

namespace qtune::evaluation {

struct TimedCase {
  std::function<void()> run;  // one call of the implementation
  // The thread runtime the case runs on (0: qtune's pool, 1: OpenMP, ...). With several threads,
  // an idle runtime keeps its workers spinning for a while after each call (qtune's pool 200 us,
  // OpenMP milliseconds), on the cores the next case needs: cases of different runtimes are then
  // timed runtime by runtime (in random order, each turn after a pause in which the others' workers
  // go idle), interleaved only within a runtime, in kTurnsPerRuntime turns each.
  int runtime = 0;
};

// With several runtimes, each times its cases in this many turns, alternating with the others'.
// On a shared host one core is at times slow for a while (the process's run-queue wait does not
// show it), and with a single turn per runtime that slowed whichever runtime had its turn then.
// Over alternating turns a slow spell reaches both runtimes alike, or a minority of one's
// repetitions, which the median ignores; three turns were still too few (docs/measurements.md,
// "Turns per thread runtime").
inline constexpr int kTurnsPerRuntime = 5;

// Timings and their verdicts (faster / same / slower): qtune/measure/timing_verdict.h.
using qtune::CaseTiming;
using qtune::case_timing;
using qtune::verdict;

// Per case, within its runtime's turn: three warm-up calls (in the first turn the fastest
// calibrates how many calls make one repetition of about two milliseconds, so that short layers are
// not timed at the clock's resolution: calls_per_repetition), with several runtimes and warm caches
// more calls until the turn has run for 20 ms, then the turn's share of `repetitions` repetitions,
// interleaved across cases in a random order drawn from `seed` (with threads > 1, across the cases
// of one runtime at a time: see TimedCase).
// Cold: each call after an eviction (cache_state.h), timed on its own.
// Returns, per case, the per-call time of each repetition in nanoseconds (case_timing summarizes).
std::vector<std::vector<double>> time_interleaved_samples(const std::vector<TimedCase>& cases, int repetitions,
                                                          unsigned seed, int threads, CacheState cache);

}  // namespace qtune::evaluation
