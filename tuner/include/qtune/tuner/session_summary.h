// The table printed at the end of `qtune tune`: per layer the best configuration, its GOP/s and
// speedup over the untuned default, and the network's estimated time before and after tuning
// (each layer's time per run weighted by how often it occurs).
#pragma once

#include <iosfwd>
#include <optional>
#include <vector>

#include "qtune/tuner/session.h"

namespace qtune {

struct NetworkEstimate {
  std::optional<double> before_seconds;  // all layers at their default configuration
  std::optional<double> after_seconds;   // all layers at their best configuration
  std::size_t layers_missing = 0;        // layers without a successful default or best
};

NetworkEstimate estimate_network(const std::vector<LayerStatus>& layers);

// `measured` is how the session measured (its cache state is named with the estimate, which
// `qtune run --cache` must match to be compared); `disturbance` what it counted as disturbed;
// `others_busy_cores` how many cores other processes kept busy on average during the session
// (machine_load.h), named from a quarter of a core on.
void print_summary(std::ostream& out, const std::vector<LayerStatus>& layers, const MeasureSettings& measured,
                   const DisturbancePolicy& disturbance, std::optional<double> others_busy_cores = std::nullopt);

}  // namespace qtune
