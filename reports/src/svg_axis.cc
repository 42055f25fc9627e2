#include "qtune/reports/svg_axis.h"

#include <cmath>
#include <cstdio>

namespace qtune::reports::svg {

namespace {

AxisTicks ticks_with_step(double lo, double hi, double step) {
  AxisTicks t;
  t.step = step;
  t.min = std::floor(lo / step + 1e-9) * step;
  t.max = std::ceil(hi / step - 1e-9) * step;
  if (t.max <= t.min) t.max = t.min + step;
  const long count = std::lround((t.max - t.min) / step);
  for (long i = 0; i <= count; ++i) t.values.push_back(t.min + static_cast<double>(i) * step);
  return t;
}

// The smallest of 1, 2, 2.5, 5, 10 times a power of ten that is at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

}  // namespace

AxisTicks nice_ticks(double lo, double hi, int target_count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 0;
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1e-12) {
    // One value: an axis from 0 (or around it) that shows it clearly.
    if (lo > 0) lo = 0;
    else if (hi < 0) hi = 0;
    else hi = 1;
  }
  return ticks_with_step(lo, hi, nice_step((hi - lo) / std::max(1, target_count)));
}

AxisTicks integer_ticks(double lo, double hi, int target_count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 0;
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1) hi = lo + 1;
  return ticks_with_step(lo, hi, std::max(1.0, nice_step((hi - lo) / std::max(1, target_count))));
}

std::string format_tick(double value, double step) {
  int decimals = 0;
  for (double s = step; decimals < 6 && std::fabs(s - std::round(s)) > 1e-9 * std::max(1.0, std::fabs(s)); s *= 10)
    ++decimals;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  const std::string text = buffer;
  if (text.find_first_not_of("-0.") == std::string::npos) return std::string(1, '0');  // no "-0"
  return text;
}

}  // namespace qtune::reports::svg
