#include "undisturbed_timing.h"

#include <chrono>

namespace qtune::cli {

UndisturbedTiming time_undisturbed(const std::function<std::vector<CaseTiming>()>& timed, double max_waiting_share,
                                   int retries, const std::function<std::optional<double>()>& waited_ns) {
  UndisturbedTiming kept;
  for (int attempt = 0;; ++attempt) {
    const auto before = waited_ns();
    const auto start = std::chrono::steady_clock::now();
    std::vector<CaseTiming> timings = timed();
    const double elapsed_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    const auto after = waited_ns();
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
