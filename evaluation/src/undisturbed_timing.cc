#include "qtune/evaluation/undisturbed_timing.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "qtune/measure/least_disturbed.h"
#include "qtune/measure/run_queue_wait.h"

namespace qtune::evaluation {

DisturbanceClocks system_disturbance_clocks() {
  return {[] { return run_queue_wait_ns(); },
          [] { return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count(); }};
}

UndisturbedTiming time_undisturbed(const std::function<std::vector<CaseTiming>()>& timed, double max_waiting_share,
                                   int retries, const DisturbanceClocks& clocks) {
  auto kept = least_disturbed<std::vector<CaseTiming>>(
      [&] {
        const auto before = clocks.waited_ns();
        const double start_ns = clocks.now_ns();
        std::vector<CaseTiming> timings = timed();
        const double elapsed_ns = clocks.now_ns() - start_ns;
        const auto after = clocks.waited_ns();
        std::optional<double> share;
        if (before && after && elapsed_ns > 0) share = std::max(0.0, *after - *before) / elapsed_ns;
        return std::pair{std::move(timings), share};
      },
      max_waiting_share, retries, [] { return false; });
  return {std::move(kept.kept), kept.waiting_share, kept.retries, kept.disturbed};
}

}  // namespace qtune::evaluation
