// Timing one callable on Google Benchmark's engine. Internal to measure.
#pragma once

#include <functional>
#include <string>

#include "qtune/measure/result.h"
#include "qtune/measure/settings.h"

namespace qtune::detail {

// Repetitions of at least settings.min_repetition_seconds each (the engine picks the iteration
// count), after a warm-up; optional cache flush before each repetition, outside the timed loop.
// Throws std::runtime_error with the message of a failed run (an exception inside `run`).
MeasureStats time_with_benchmark(const std::function<void()>& run, const MeasureSettings& settings);

}  // namespace qtune::detail
