// Line chart of numeric series as a standalone inline SVG, with both axes ticked, a title, axis
// labels and a legend. Series may be drawn as steps (best-so-far curves change only at points).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qtune::reports::svg {

struct LineSeries {
  std::string name;
  std::string color;  // empty = the palette's colour for the series' position
  std::vector<std::pair<double, double>> points;  // (x, y), x increasing
};

struct LineChart {
  std::string title;
  std::string title_tooltip;  // full text when the title is shortened; empty = the title
  std::string x_label;
  std::string y_label;
  std::vector<LineSeries> series;
  bool steps = false;          // hold each y until the next x
  bool integer_x = false;      // x ticks at whole numbers (trial counts)
  double width = 420;
  double height = 260;
  std::size_t title_chars = 48;
};

std::string render_line_chart(const LineChart& chart);

}  // namespace qtune::reports::svg
