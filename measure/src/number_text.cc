#include "qtune/measure/number_text.h"

#include <cstdio>

namespace qtune {

std::string fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string format_time_ns(double ns) {
  if (ns < 1e3) return fixed(ns, 0) + " ns";
  if (ns < 1e6) return fixed(ns / 1e3, 2) + " us";
  if (ns < 1e9) return fixed(ns / 1e6, 2) + " ms";
  return fixed(ns / 1e9, 2) + " s";
}

}  // namespace qtune
