// How a candidate is measured: warm-up, repetitions, cache flushing, pinning, time limit.
#pragma once

#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "qtune/measure/cache_state.h"

namespace qtune {

struct MeasureSettings {
  double warmup_seconds = 0.01;           // run (untimed) at least this long before repetition 1
  double min_repetition_seconds = 0.01;   // each repetition loops the kernel at least this long
                                          // (AutoTVM's min_repeat_ms): short kernels get many runs
  int repetitions = 3;                    // timed repetitions; statistics are over these
  bool flush_cache = false;               // write a buffer larger than the last-level cache before
                                          // each repetition (not timed): cold-cache numbers
  CacheState cache = CacheState::warm;    // cold: an eviction before every timed call, as between
                                          // two calls of a layer in a network (cache_state.h)
  int pin_cpu = -1;                       // >= 0: run the measuring thread on this CPU only
  double timeout_seconds = 30;            // isolated mode: longer than this is a "timeout" result
  bool check_correctness = true;          // compare with the scalar reference before timing
  std::uint64_t seed = 1;                 // inputs and quantization parameters

  // Fast settings for search (3 x 10 ms after 10 ms warm-up) and stable settings for final /
  // benchmark numbers (10 x 50 ms after 100 ms warm-up).
  static MeasureSettings tuning();
  static MeasureSettings stable();

  void validate() const;  // std::invalid_argument naming the field
  friend bool operator==(const MeasureSettings&, const MeasureSettings&) = default;
};

nlohmann::json to_json(const MeasureSettings& settings);
MeasureSettings settings_from_json(const nlohmann::json& j);  // std::invalid_argument naming the field

}  // namespace qtune
