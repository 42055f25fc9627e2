// Grouped vertical bar chart as a standalone inline SVG: one group per category, one bar per
// series, value axis with ticks and grid, title, axis labels and legend. Wide data grows the
// chart to the right (the page scrolls it) rather than squeezing bars, and few categories spread
// over the minimum width with wider bars; long category labels are shortened, with the full text
// in a <title> tooltip.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace qtune::reports::svg {

struct BarSeries {
  std::string name;
  std::string color;  // CSS colour; empty = the palette's colour for the series' position
  std::vector<std::optional<double>> values;  // one per category; nullopt draws no bar
};

struct BarChart {
  std::string title;
  std::string x_label;
  std::string y_label;  // with units: "throughput (GOP/s)"
  std::vector<std::string> categories;         // axis labels
  std::vector<std::string> category_details;   // optional tooltip text per category (default: the label)
  std::vector<BarSeries> series;
  std::string value_unit;  // appended to values in tooltips: "GOP/s"
  double min_width = 640;
  double height = 380;
  std::size_t label_chars = 18;  // category labels longer than this are shortened
};

std::string render_bar_chart(const BarChart& chart);

}  // namespace qtune::reports::svg
