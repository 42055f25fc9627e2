// time_interleaved on a shared machine: when the process's threads waited for a CPU (other
// processes had it) more than a threshold while the cases were timed, they are timed again, a
// bounded number of times, and the least disturbed timing is kept: the rule of the tuner's
// measurements (tuner/disturbance.h, docs/measurement-protocol.md "Disturbance").
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "interleaved_timing.h"

namespace qtune::cli {

struct UndisturbedTiming {
  std::vector<CaseTiming> timings;     // of the kept attempt
  std::optional<double> waiting_share;  // of the kept attempt; nullopt where the kernel does not say
  int retimed = 0;                      // attempts thrown away as disturbed
  bool disturbed = false;               // the kept attempt is disturbed too (retries used up)
};

// `timed` runs one attempt (time_interleaved with its seed); `waited_ns` reads the process's
// run-queue wait (run_queue_wait_ns, a seam for tests).
UndisturbedTiming time_undisturbed(const std::function<std::vector<CaseTiming>()>& timed, double max_waiting_share,
                                   int retries, const std::function<std::optional<double>()>& waited_ns);

}  // namespace qtune::cli
