#include "undisturbed_timing.h"

#include <algorithm>
#include <chrono>

#include "qtune/measure/run_queue_wait.h"

namespace qtune::cli {

DisturbanceClocks system_disturbance_clocks() {
  return {[] { return run_queue_wait_ns(); },
          [] { return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count(); }};
}

UndisturbedTiming time_undisturbed(const std::function<std::vector<CaseTiming>()>& timed, double max_waiting_share,
                                   int retries, const DisturbanceClocks& clocks) {
  UndisturbedTiming kept;
  for (int attempt = 0;; ++attempt) {
    const auto before = clocks.waited_ns();
    const double start_ns = clocks.now_ns();
    std::vector<CaseTiming> timings = timed();
    const double elapsed_ns = clocks.now_ns() - start_ns;
    const auto after = clocks.waited_ns();
    std::optional<double> share;
    if (before && after && elapsed_ns > 0) share = std::max(0.0, *after - *before) / elapsed_ns;
    if (attempt == 0 || (share && kept.waiting_share && *share < *kept.waiting_share)) {
      kept.timings = std::move(timings);
      kept.waiting_share = share;
    }
    kept.disturbed = kept.waiting_share && *kept.waiting_share > max_waiting_share;
    if (!kept.disturbed || attempt == retries) return kept;
    ++kept.retimed;
  }
}

}  // namespace qtune::cli
