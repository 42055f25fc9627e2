// The parts every chart shares: the title line, the value axis with grid lines and its label, and
// the legend of series colours.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "qtune/reports/svg_axis.h"
#include "svg_writer.h"

namespace qtune::reports::svg {

// The plotting area inside the margins.
struct PlotArea {
  double left = 0, top = 0, width = 0, height = 0;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

// Maps a value of `ticks`' range to a y coordinate in the area (larger values higher).
double y_of(const PlotArea& area, const AxisTicks& ticks, double value);

void draw_title(SvgWriter& svg, double x, double y, const std::string& title, const std::string& tooltip = "");

// Left axis: tick labels, light grid lines across the area, and the rotated axis label.
void draw_value_axis(SvgWriter& svg, const PlotArea& area, const AxisTicks& ticks, const std::string& label);

// Legend entries (name, colour) in one row starting at (x, y); returns the width used.
double draw_legend(SvgWriter& svg, double x, double y, const std::vector<std::pair<std::string, std::string>>& entries);

// Width a legend row will take (for right-aligning it).
double legend_width(const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace qtune::reports::svg
