// Heat map over two categorical axes as a standalone inline SVG: one coloured cell per (row,
// column) with its value written in it, grey hatching where nothing was measured, a colour scale
// legend, a title and axis labels.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace qtune::reports::svg {

struct HeatMap {
  std::string title;
  std::string x_label;      // columns
  std::string y_label;      // rows
  std::string value_label;  // with units, for the colour scale: "GOP/s"
  std::vector<std::string> columns;
  std::vector<std::string> rows;
  std::vector<std::vector<std::optional<double>>> values;  // [row][column]
  std::vector<std::vector<std::string>> tooltips;           // [row][column], optional extra text
};

std::string render_heat_map(const HeatMap& map);

}  // namespace qtune::reports::svg
