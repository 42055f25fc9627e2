// What the knobs did for one layer: the best GOP/s per (instruction set, tile) over every other
// knob, and paired comparisons of configurations that differ only in fused vs separate
// requantization.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "qtune/records/measurement.h"
#include "qtune/reports/report_data.h"
#include "qtune/search_space/workload.h"

namespace qtune::reports {

// `op` orders the rows and columns as the operator's knob domains do (small to large); values
// this build does not know come after them, in text order. nullopt gop_per_run: stored GOP/s only.
KnobHeatMap isa_tile_heat_map(std::optional<OpKind> op, const std::vector<records::MeasurementRecord>& measurements,
                              std::optional<double> gop_per_run);

FuseEffect fuse_effect(const std::vector<records::MeasurementRecord>& measurements, std::optional<double> gop_per_run,
                       std::size_t max_pairs);

}  // namespace qtune::reports
