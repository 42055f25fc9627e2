#include "qtune/reports/text_format.h"

#include <cstdio>

namespace qtune::reports {

namespace {

std::string printf_string(const char* format, double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

std::string format_time_ns(double ns) {
  if (ns < 1e3) return printf_string("%.0f ns", ns);
  if (ns < 1e6) return printf_string("%.2f us", ns / 1e3);
  if (ns < 1e9) return printf_string("%.2f ms", ns / 1e6);
  return printf_string("%.2f s", ns / 1e9);
}

std::string format_gops(std::optional<double> v) { return v ? printf_string("%.2f", *v) : "-"; }

std::string format_speedup(std::optional<double> v) { return v ? printf_string("%.2fx", *v) : "-"; }

std::string format_percent(double fraction) { return printf_string("%.1f%%", fraction * 100); }

}  // namespace qtune::reports
