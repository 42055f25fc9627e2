// A small synthetic tuning problem for the tuner's tests: a space with numeric, categorical and
// conditional knobs plus a constraint, and a deterministic cost surface over it with one global
// optimum, interactions between knobs, and a failing region (as wrong answers or crashes are).
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "qtune/search_space/knob_space.h"

namespace qtune::testing {

inline KnobSpace synthetic_space() {
  std::vector<Knob> knobs = {
      Knob{"tile", {"1", "2", "4", "8", "16", "32"}, "register tile", true, "1", {}, {}, {}},
      Knob{"block", {"16", "32", "64", "128", "256", "512", "1024"}, "cache block", true, "16", {}, {}, {}},
      Knob{"order", {"ijk", "ikj", "jik"}, "loop order", false, "ijk", {}, {}, {}},
      Knob{"pack", {"0", "1"}, "pack the panel", true, "0", {}, {}, {}},
      Knob{"prefetch", {"0", "64", "128", "256"}, "prefetch distance (only when packing)", true, "0", "pack", {"1"}, {}},
  };
  // Register pressure: the tile must fit the block.
  std::vector<KnobSpace::Constraint> constraints = {[](const Config& c) -> std::string {
    return c.get_int("tile") * 16 > c.get_int("block") * 4 ? "tile too large for the block" : "";
  }};
  return KnobSpace("synthetic", std::move(knobs), std::move(constraints));
}

// GOP/s of a configuration; nullopt for the failing region (tile 32 with order jik "crashes").
inline std::optional<double> synthetic_gops(const Config& c) {
  const double tile = std::log2(c.get_int("tile"));
  const double block = std::log2(c.get_int("block"));
  const std::string order = c.get("order");
  if (c.get_int("tile") == 32 && order == "jik") return std::nullopt;
  double g = 100.0 * std::exp(-0.35 * (tile - 3) * (tile - 3) - 0.25 * (block - 7.5 + 0.3 * tile - 0.9) *
                                                                 (block - 7.5 + 0.3 * tile - 0.9));
  g *= order == "ikj" ? 1.35 : order == "ijk" ? 1.0 : 0.8;
  if (c.get_int("pack") == 1) {
    const int prefetch = c.get_int("prefetch");
    g *= prefetch == 128 ? 1.25 : prefetch == 0 ? 0.95 : 1.1;
    if (order == "jik") g *= 0.7;  // interaction: packing hurts the column-major order
  }
  return g;
}

}  // namespace qtune::testing
