#include "qtune/measure/timing_verdict.h"

#include <algorithm>

namespace qtune {
namespace {

// The value at quantile q of sorted samples (linear interpolation).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double relative_spread(const CaseTiming& t) { return (t.high_ns - t.low_ns) / t.median_ns; }

}  // namespace

CaseTiming case_timing(std::vector<double> samples_ns) {
  if (samples_ns.empty()) return {};
  std::sort(samples_ns.begin(), samples_ns.end());
  return {quantile(samples_ns, 0.5), quantile(samples_ns, 0.25), quantile(samples_ns, 0.75),
          static_cast<int>(samples_ns.size())};
}

double minimum_effect(const CaseTiming& candidate, const CaseTiming& baseline) {
  return std::max({kMinimumEffect, relative_spread(candidate), relative_spread(baseline)});
}

bool close_call(const CaseTiming& candidate, const CaseTiming& baseline) {
  if (!(candidate.median_ns > 0) || !(baseline.median_ns > 0)) return false;
  const double effect = minimum_effect(candidate, baseline);
  if (effect > kMinimumEffect) return true;  // a spread wider than the floor
  const double apart = std::max(candidate.median_ns, baseline.median_ns) / std::min(candidate.median_ns, baseline.median_ns) - 1;
  return apart >= effect / 2 && apart <= effect * 2;
}

std::string verdict(const CaseTiming& candidate, const CaseTiming& baseline) {
  if (candidate.repetitions < 3 || baseline.repetitions < 3) return "-";
  if (!(candidate.median_ns > 0) || !(baseline.median_ns > 0)) return "-";
  const double effect = minimum_effect(candidate, baseline);
  // The difference as a share of the faster median: the ratio the tables print, minus one.
  const auto differs = [&](const CaseTiming& fast, const CaseTiming& slow) {
    return fast.high_ns < slow.low_ns && slow.median_ns / fast.median_ns - 1 > effect;
  };
  if (differs(candidate, baseline)) return "faster";
  if (differs(baseline, candidate)) return "slower";
  return "same";
}

std::string anchored_verdict(const CaseTiming& candidate, const CaseTiming& baseline,
                             std::optional<double> recorded_ratio) {
  const std::string own = verdict(candidate, baseline);
  if (own == "-" || !recorded_ratio || !(*recorded_ratio > 0)) return own;
  const double floor = kMinimumEffect, ratio = baseline.median_ns / candidate.median_ns;
  const double recorded = *recorded_ratio;
  if (recorded > 1 + floor) return ratio > 1 + floor / 2 ? "faster" : own;
  if (recorded < 1 / (1 + floor)) return ratio < 1 / (1 + floor / 2) ? "slower" : own;
  return ratio < 1 + 2 * floor && ratio > 1 / (1 + 2 * floor) ? "same" : own;
}

}  // namespace qtune
