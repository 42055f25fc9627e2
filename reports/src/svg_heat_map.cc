#include "qtune/reports/svg_heat_map.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "chart_frame.h"

namespace qtune::reports::svg {

namespace {

constexpr double kCellWidth = 78, kCellHeight = 36;
constexpr double kMapMarginLeft = 104, kMapMarginTop = 52, kMapMarginBottom = 64, kScaleWidth = 110;
constexpr int kScaleSteps = 12;

struct Rgb {
  double r, g, b;
};

// A perceptually ordered scale (viridis stops): low is dark blue-purple, high is yellow.
Rgb scale_color(double t) {
  static constexpr std::array<Rgb, 5> kStops = {
      Rgb{68, 1, 84}, Rgb{59, 82, 139}, Rgb{33, 145, 140}, Rgb{94, 201, 98}, Rgb{253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * (kStops.size() - 1);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(t), kStops.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb& a = kStops[i];
  const Rgb& b = kStops[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

std::string css(const Rgb& c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", static_cast<int>(std::lround(c.r)),
                static_cast<int>(std::lround(c.g)), static_cast<int>(std::lround(c.b)));
  return buffer;
}

// Dark text on light cells, light text on dark ones.
std::string text_color_on(const Rgb& c) {
  const double luminance = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
  return luminance > 140 ? "#111111" : "#ffffff";
}

std::string value_text(double v) { return format_tick(v, v >= 100 ? 1 : (v >= 10 ? 0.1 : 0.01)); }

}  // namespace

std::string render_heat_map(const HeatMap& map) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& row : map.values) {
    for (const auto& v : row) {
      if (!v) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
  }
  const bool any = lo <= hi;
  auto fraction = [&](double v) { return hi > lo ? (v - lo) / (hi - lo) : 1.0; };

  const double grid_width = std::max(1.0, static_cast<double>(map.columns.size())) * kCellWidth;
  const double grid_height = std::max(1.0, static_cast<double>(map.rows.size())) * kCellHeight;
  const double width = std::max(kMapMarginLeft + grid_width + kScaleWidth, 420.0);
  const double height = kMapMarginTop + std::max(grid_height, 150.0) + kMapMarginBottom;
  SvgWriter svg(width, height, map.title);
  draw_title(svg, 12, 22, map.title);

  for (std::size_t r = 0; r < map.rows.size(); ++r) {
    const double y = kMapMarginTop + static_cast<double>(r) * kCellHeight;
    svg.text(kMapMarginLeft - 8, y + kCellHeight / 2 + 4, shorten(map.rows[r], 12), "end", 12, map.rows[r], 0,
             "class=\"category\"");
    for (std::size_t c = 0; c < map.columns.size(); ++c) {
      const double x = kMapMarginLeft + static_cast<double>(c) * kCellWidth;
      // A plain flag and value: GCC 12 misreports an optional copied through ?: as uninitialized.
      const bool measured = r < map.values.size() && c < map.values[r].size() && map.values[r][c].has_value();
      const double value = measured ? *map.values[r][c] : 0.0;
      const std::string extra =
          r < map.tooltips.size() && c < map.tooltips[r].size() && !map.tooltips[r][c].empty() ? "\n" + map.tooltips[r][c] : "";
      const std::string where = map.y_label + " " + map.rows[r] + ", " + map.x_label + " " + map.columns[c];
      if (!measured) {
        svg.rect(x + 1, y + 1, kCellWidth - 2, kCellHeight - 2, "#f2f2f2", where + ": not measured", "class=\"cell\"");
        svg.text(x + kCellWidth / 2, y + kCellHeight / 2 + 4, "\u2013", "middle", 12, "", 0, "fill=\"#999999\"");
        continue;
      }
      const Rgb color = scale_color(fraction(value));
      svg.rect(x + 1, y + 1, kCellWidth - 2, kCellHeight - 2, css(color),
               where + ": " + value_text(value) + " " + map.value_label + extra, "class=\"cell\"");
      svg.text(x + kCellWidth / 2, y + kCellHeight / 2 + 4, value_text(value), "middle", 12, "", 0,
               "fill=\"" + text_color_on(color) + "\"");
    }
  }
  const double grid_bottom = kMapMarginTop + grid_height;
  for (std::size_t c = 0; c < map.columns.size(); ++c) {
    const double x = kMapMarginLeft + (static_cast<double>(c) + 0.5) * kCellWidth;
    svg.text(x, grid_bottom + 16, shorten(map.columns[c], 11), "middle", 12, map.columns[c], 0, "class=\"category\"");
  }
  svg.text(kMapMarginLeft + grid_width / 2, grid_bottom + 40, map.x_label, "middle", 12, "", 0, "class=\"axis-label\"");
  svg.text(22, kMapMarginTop + grid_height / 2, map.y_label, "middle", 12, "", -90, "class=\"axis-label\"");

  // Colour scale: the legend of the cell colours, low at the bottom.
  const double scale_x = kMapMarginLeft + grid_width + 28, scale_top = kMapMarginTop, scale_height = std::max(grid_height, 150.0) - 10;
  svg.text(scale_x, scale_top - 8, map.value_label, "start", 12, "", 0, "class=\"legend\"");
  if (any) {
    const double step_height = scale_height / kScaleSteps;
    for (int i = 0; i < kScaleSteps; ++i) {
      const double t = (static_cast<double>(i) + 0.5) / kScaleSteps;
      svg.rect(scale_x, scale_top + scale_height - static_cast<double>(i + 1) * step_height, 16, step_height + 0.5,
               css(scale_color(t)), "", "class=\"legend-swatch\"");
    }
    svg.text(scale_x + 22, scale_top + 10, value_text(hi), "start", 11, "", 0, "class=\"tick\"");
    svg.text(scale_x + 22, scale_top + scale_height, value_text(lo), "start", 11, "", 0, "class=\"tick\"");
  } else {
    svg.text(scale_x, scale_top + 16, "no data", "start", 11);
  }
  return svg.finish();
}

}  // namespace qtune::reports::svg
