#include "chart_frame.h"

namespace qtune::reports::svg {

namespace {

constexpr double kLegendSwatch = 12;
constexpr double kLegendGap = 16;
constexpr double kCharWidth = 6.6;  // average glyph width of 12px sans-serif, for layout only

}  // namespace

double y_of(const PlotArea& area, const AxisTicks& ticks, double value) {
  const double span = ticks.max - ticks.min;
  const double fraction = span > 0 ? (value - ticks.min) / span : 0;
  return area.bottom() - fraction * area.height;
}

void draw_title(SvgWriter& svg, double x, double y, const std::string& title, const std::string& tooltip) {
  svg.text(x, y, title, "start", 15, tooltip, 0, "font-weight=\"bold\" class=\"chart-title\"");
}

void draw_value_axis(SvgWriter& svg, const PlotArea& area, const AxisTicks& ticks, const std::string& label) {
  for (double v : ticks.values) {
    const double y = y_of(area, ticks, v);
    svg.line(area.left, y, area.right(), y, v == ticks.min ? "#444444" : "#e3e3e3", 1);
    svg.line(area.left - 5, y, area.left, y, "#444444", 1);
    svg.text(area.left - 8, y + 4, format_tick(v, ticks.step), "end", 11, "", 0, "class=\"tick\"");
  }
  svg.line(area.left, area.top, area.left, area.bottom(), "#444444", 1);
  const double x = area.left - 52, y = area.top + area.height / 2;
  svg.text(x, y, label, "middle", 12, "", -90, "class=\"axis-label\"");
}

double legend_width(const std::vector<std::pair<std::string, std::string>>& entries) {
  double width = 0;
  for (const auto& [name, color] : entries) width += kLegendSwatch + 5 + kCharWidth * static_cast<double>(name.size()) + kLegendGap;
  return width;
}

double draw_legend(SvgWriter& svg, double x, double y, const std::vector<std::pair<std::string, std::string>>& entries) {
  double cursor = x;
  for (const auto& [name, color] : entries) {
    svg.rect(cursor, y - kLegendSwatch + 2, kLegendSwatch, kLegendSwatch, color, "", "class=\"legend-swatch\"");
    svg.text(cursor + kLegendSwatch + 5, y, name, "start", 12, "", 0, "class=\"legend\"");
    cursor += kLegendSwatch + 5 + kCharWidth * static_cast<double>(name.size()) + kLegendGap;
  }
  return cursor - x;
}

}  // namespace qtune::reports::svg
