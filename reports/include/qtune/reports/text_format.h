// How reports spell numbers, the same in every format: times with a unit that fits, throughput
// with two decimals, speedups as "1.85x".
#pragma once

#include <optional>
#include <string>

#include "qtune/measure/number_text.h"

namespace qtune::reports {

using ::qtune::format_time_ns;                     // "850 ns", "12.35 us", "1.23 ms", "2.50 s"
std::string format_gops(std::optional<double> v);  // "12.34", "-" when unknown
std::string format_speedup(std::optional<double> v);  // "1.85x", "-" when unknown
std::string format_percent(double fraction);       // 0.1234 -> "12.3%"

}  // namespace qtune::reports
