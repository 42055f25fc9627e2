// The report's charts as chart specifications built from ReportData: which numbers go on which
// axis, with which titles, labels, units and colours. The HTML renderer only places them.
#pragma once

#include <vector>

#include "qtune/reports/report_data.h"
#include "qtune/reports/svg_bar_chart.h"
#include "qtune/reports/svg_heat_map.h"
#include "qtune/reports/svg_line_chart.h"

namespace qtune::reports {

// The series colours every chart uses for the same thing.
inline constexpr const char* kUntunedColor = "#8c8c8c";
inline constexpr const char* kTunedColor = "#0072B2";
inline constexpr const char* kOneDnnColor = "#E69F00";

// GOP/s of every layer: untuned default, tuned best, and oneDNN when any layer has it.
svg::BarChart layer_throughput_chart(const ReportData& data);

// Layers in the order their curves are shown: most network time first.
std::vector<std::size_t> layers_by_time(const ReportData& data);

// Best-so-far GOP/s against trial number for one layer, one series per strategy.
svg::LineChart tuning_curve_chart(const LayerReport& layer);

// The focus layer's GOP/s over tile x instruction set.
svg::HeatMap focus_heat_map(const ReportData& data);

// The focus layer's fused / separate pairs, fastest first.
svg::BarChart fuse_pairs_chart(const ReportData& data);

}  // namespace qtune::reports
