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

std::string format_gops(std::optional<double> v) { return v ? printf_string("%.2f", *v) : "-"; }

std::string format_speedup(std::optional<double> v) { return v ? printf_string("%.2fx", *v) : "-"; }

std::string format_percent(double fraction) { return printf_string("%.1f%%", fraction * 100); }

}  // namespace qtune::reports
