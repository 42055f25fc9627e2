// The rule both the tuner's measurements and `qtune run`'s layer timings follow on a shared
// machine (docs/measurement-protocol.md, "Disturbance"): an attempt whose threads waited for a CPU
// (other processes had it) for more than a share of its time is taken again, a bounded number of
// times, and the least disturbed attempt is kept. An attempt whose share is unknown (a failed
// measurement, a kernel without scheduler statistics) cannot be judged: it is kept and ends the
// retries, since a failure is news and retrying cannot tell more.
#pragma once

#include <optional>
#include <utility>

namespace qtune {

template <class Attempt>
struct LeastDisturbed {
  Attempt kept;
  std::optional<double> waiting_share;  // of the kept attempt
  int retries = 0;                      // attempts taken again after a disturbed one
  bool disturbed = false;               // the kept attempt is disturbed too (retries used up, or stopped)
};

// `attempt()` takes one attempt and returns {attempt, its waiting share or nullopt}; `stop()`
// (checked before each retry) ends the retries early.
template <class Attempt, class TakeAttempt, class Stop>
LeastDisturbed<Attempt> least_disturbed(TakeAttempt&& attempt, double max_waiting_share, int retries, Stop&& stop) {
  const auto is_disturbed = [&](const std::optional<double>& share) { return share && *share > max_waiting_share; };
  auto [first, first_share] = attempt();
  LeastDisturbed<Attempt> out{std::move(first), first_share};
  while (is_disturbed(out.waiting_share) && out.retries < retries && !stop()) {
    ++out.retries;
    auto [again, share] = attempt();
    if (!share || *share < *out.waiting_share) {
      out.kept = std::move(again);
      out.waiting_share = share;
    }
  }
  out.disturbed = is_disturbed(out.waiting_share);
  return out;
}

}  // namespace qtune
