// Timing interleaved cases on a shared machine: when the process's threads waited for a CPU (other
// processes had it) more than a threshold while the cases were timed, they are timed again, a
// bounded number of times, and the least disturbed timing is kept: the rule of the tuner's
// measurements (tuner/disturbance.h, docs/measurement-protocol.md "Disturbance").
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "qtune/evaluation/interleaved_timing.h"

namespace qtune::evaluation {

struct UndisturbedTiming {
  std::vector<CaseTiming> timings;     // of the kept attempt
  std::optional<double> waiting_share;  // of the kept attempt; nullopt where the kernel does not say
  int retimed = 0;                      // attempts thrown away as disturbed
  bool disturbed = false;               // the kept attempt is disturbed too (retries used up)
};

// The clocks of time_undisturbed: the process's run-queue wait (run_queue_wait_ns) and the time,
// both in nanoseconds. Seams for tests; steady_clock and the kernel's statistics otherwise.
struct DisturbanceClocks {
  std::function<std::optional<double>()> waited_ns;
  std::function<double()> now_ns;
};
DisturbanceClocks system_disturbance_clocks();

// `timed` runs one attempt (time_at_placements with its seed).
UndisturbedTiming time_undisturbed(const std::function<std::vector<CaseTiming>()>& timed, double max_waiting_share,
                                   int retries, const DisturbanceClocks& clocks = system_disturbance_clocks());

}  // namespace qtune::evaluation
