// Number formatting shared by the tuner's human-readable output. Internal.
#pragma once

#include <cstdio>
#include <string>

namespace qtune::detail {

// v with exactly `digits` digits after the point ("%.*f").
inline std::string fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

}  // namespace qtune::detail
