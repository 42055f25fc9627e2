#include "qtune/reports/svg_bar_chart.h"

#include <algorithm>
#include <cmath>

#include "chart_frame.h"

namespace qtune::reports::svg {

namespace {

constexpr double kMarginLeft = 74, kMarginRight = 20, kMarginTop = 64, kMarginBottom = 132;
constexpr double kLabelCharWidth = 6.0;  // average glyph width of the 11 px labels, for layout
constexpr double kLabelAngle = 40 * 3.14159265358979 / 180;
constexpr double kBarWidth = 12, kMaxBarWidth = 26, kGroupGap = 14;

std::string value_text(double v, const std::string& unit) {
  return format_tick(v, v >= 100 ? 1 : (v >= 1 ? 0.01 : 0.001)) + (unit.empty() ? "" : " " + unit);
}

}  // namespace

std::string render_bar_chart(const BarChart& chart) {
  const std::size_t groups = chart.categories.size();
  const std::size_t per_group = std::max<std::size_t>(chart.series.size(), 1);
  // Narrow bars when there are many groups (the chart grows and scrolls); when few, the groups
  // share the minimum width and the bars widen up to a limit.
  const double minimum_plot = chart.min_width - kMarginLeft - kMarginRight;
  double group_width = static_cast<double>(per_group) * kBarWidth + kGroupGap;
  if (groups > 0 && static_cast<double>(groups) * group_width < minimum_plot) group_width = minimum_plot / static_cast<double>(groups);
  const double bar_width = std::min(kMaxBarWidth, (group_width - kGroupGap) / static_cast<double>(per_group));
  const double bars_width = bar_width * static_cast<double>(per_group);

  std::vector<std::pair<std::string, std::string>> legend;
  double max_value = 0;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const auto& series = chart.series[s];
    legend.emplace_back(series.name, series.color.empty() ? palette_color(s) : series.color);
    for (const auto& v : series.values) {
      if (v) max_value = std::max(max_value, *v);
    }
  }

  // Rotated labels reach down and to the left of their group: make room for the longest.
  std::size_t longest = 0;
  for (const auto& c : chart.categories) longest = std::max(longest, std::min(c.size(), chart.label_chars));
  const double label_length = static_cast<double>(longest) * kLabelCharWidth;
  const double margin_bottom = std::max(kMarginBottom, 14 + label_length * std::sin(kLabelAngle) + 36);
  const double margin_left = std::max(kMarginLeft, label_length * std::cos(kLabelAngle) - group_width / 2 + 10);

  PlotArea area;
  area.left = margin_left;
  area.top = kMarginTop;
  area.width = std::max(minimum_plot, static_cast<double>(groups) * group_width);
  area.width = std::max(area.width, legend_width(legend));
  area.height = chart.height - kMarginTop - kMarginBottom;
  const double width = area.right() + kMarginRight;
  const double height = area.bottom() + margin_bottom;

  SvgWriter svg(width, height, chart.title);
  draw_title(svg, 12, 22, chart.title);
  draw_legend(svg, area.left, 46, legend);
  const AxisTicks ticks = nice_ticks(0, max_value);
  draw_value_axis(svg, area, ticks, chart.y_label);

  for (std::size_t g = 0; g < groups; ++g) {
    const double group_left = area.left + static_cast<double>(g) * group_width + (group_width - bars_width) / 2;
    const std::string& category = chart.categories[g];
    const std::string& details =
        g < chart.category_details.size() && !chart.category_details[g].empty() ? chart.category_details[g] : category;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const auto& values = chart.series[s].values;
      if (g >= values.size() || !values[g]) continue;
      const double top = y_of(area, ticks, *values[g]);
      svg.rect(group_left + static_cast<double>(s) * bar_width, top, bar_width - 1, area.bottom() - top, legend[s].second,
               details + " \u2014 " + chart.series[s].name + ": " + value_text(*values[g], chart.value_unit),
               "class=\"bar\"");
    }
    const double label_x = group_left + bars_width / 2;
    svg.text(label_x, area.bottom() + 14, shorten(category, chart.label_chars), "end", 11, details, -40,
             "class=\"category\"");
  }
  svg.line(area.left, area.bottom(), area.right(), area.bottom(), "#444444", 1);
  svg.text(area.left + area.width / 2, height - 10, chart.x_label, "middle", 12, "", 0, "class=\"axis-label\"");
  return svg.finish();
}

}  // namespace qtune::reports::svg
