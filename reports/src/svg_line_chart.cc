#include "qtune/reports/svg_line_chart.h"

#include <algorithm>
#include <limits>

#include "chart_frame.h"

namespace qtune::reports::svg {

namespace {

constexpr double kLineMarginLeft = 74, kLineMarginRight = 16, kLineMarginTop = 58, kLineMarginBottom = 48;

}  // namespace

std::string render_line_chart(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_hi = 0;
  std::vector<std::pair<std::string, std::string>> legend;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const auto& series = chart.series[s];
    legend.emplace_back(series.name, series.color.empty() ? palette_color(s) : series.color);
    for (const auto& [x, y] : series.points) {
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_hi = std::max(y_hi, y);
    }
  }
  if (x_lo > x_hi) x_lo = x_hi = 0;

  PlotArea area;
  area.left = kLineMarginLeft;
  area.top = kLineMarginTop;
  area.width = chart.width - kLineMarginLeft - kLineMarginRight;
  area.height = chart.height - kLineMarginTop - kLineMarginBottom;

  SvgWriter svg(chart.width, chart.height, chart.title_tooltip.empty() ? chart.title : chart.title_tooltip);
  draw_title(svg, 12, 22, shorten(chart.title, chart.title_chars),
             chart.title_tooltip.empty() ? chart.title : chart.title_tooltip);
  draw_legend(svg, area.left, 44, legend);
  const AxisTicks y_ticks = nice_ticks(0, y_hi, 4);
  draw_value_axis(svg, area, y_ticks, chart.y_label);
  const AxisTicks x_ticks = chart.integer_x ? integer_ticks(x_lo, x_hi, 5) : nice_ticks(x_lo, x_hi, 5);
  auto x_of = [&](double x) {
    const double span = x_ticks.max - x_ticks.min;
    return area.left + (span > 0 ? (x - x_ticks.min) / span : 0) * area.width;
  };
  for (double v : x_ticks.values) {
    const double x = x_of(v);
    svg.line(x, area.bottom(), x, area.bottom() + 5, "#444444", 1);
    svg.text(x, area.bottom() + 17, format_tick(v, x_ticks.step), "middle", 11, "", 0, "class=\"tick\"");
  }
  svg.text(area.left + area.width / 2, chart.height - 8, chart.x_label, "middle", 12, "", 0, "class=\"axis-label\"");

  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const auto& points = chart.series[s].points;
    if (points.empty()) continue;
    std::string d;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double x = x_of(points[i].first), y = y_of(area, y_ticks, points[i].second);
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "M" + std::string.
      if (i == 0) {
        d.append("M").append(num(x)).append(" ").append(num(y));
      } else if (chart.steps) {
        d.append(" H").append(num(x)).append(" V").append(num(y));
      } else {
        d.append(" L").append(num(x)).append(" ").append(num(y));
      }
    }
    const auto& color = legend[s].second;
    svg.path(d, color, 2, chart.series[s].name);
    // The last point carries its value: what the strategy reached.
    const auto& [last_x, last_y] = points.back();
    svg.circle(x_of(last_x), y_of(area, y_ticks, last_y), 3, color,
               chart.series[s].name + ": " + format_tick(last_y, 0.01) + " at " + format_tick(last_x, chart.integer_x ? 1 : 0.01));
  }
  return svg.finish();
}

}  // namespace qtune::reports::svg
