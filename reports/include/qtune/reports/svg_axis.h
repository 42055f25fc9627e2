// Axis ticks for charts: "nice" round steps (1, 2, 2.5 or 5 times a power of ten) covering the
// data range, and tick labels with as many decimals as the step needs.
#pragma once

#include <string>
#include <vector>

namespace qtune::reports::svg {

struct AxisTicks {
  double min = 0;  // the axis range: the first and last tick
  double max = 1;
  double step = 1;
  std::vector<double> values;  // min, min + step, ..., max
};

// Ticks covering [lo, hi] with about `target_count` intervals. A degenerate range (lo == hi, or
// non-finite values) still gives a usable axis around it.
AxisTicks nice_ticks(double lo, double hi, int target_count = 5);

// Same, for counts: integral steps only (trial numbers).
AxisTicks integer_ticks(double lo, double hi, int target_count = 5);

// "0", "2.5", "1200", "0.05": the value with the decimals its step needs.
std::string format_tick(double value, double step);

}  // namespace qtune::reports::svg
