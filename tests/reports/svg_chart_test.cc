// The SVG chart helpers on their own: nice axis ticks, and bar / line / heat-map charts with
// their title, axis labels, legend and well-formed markup.
#include <gtest/gtest.h>

#include "qtune/reports/svg_axis.h"
#include "qtune/reports/svg_bar_chart.h"
#include "qtune/reports/svg_heat_map.h"
#include "qtune/reports/svg_line_chart.h"
#include "reports/markup_check.h"

namespace qtune::reports::svg {
namespace {

using testing::count_of;
using testing::unbalanced_tags;

TEST(SvgAxisTest, TicksAreRoundAndCoverTheRange) {
  const AxisTicks t = nice_ticks(0, 41.9);
  EXPECT_EQ(t.min, 0);
  EXPECT_EQ(t.step, 10);
  EXPECT_EQ(t.max, 50);
  EXPECT_EQ(t.values, (std::vector<double>{0, 10, 20, 30, 40, 50}));
  const AxisTicks small = nice_ticks(0, 0.37, 4);
  EXPECT_DOUBLE_EQ(small.step, 0.1);
  EXPECT_DOUBLE_EQ(small.max, 0.4);
  EXPECT_EQ(format_tick(0.30000000000000004, small.step), "0.3");
  EXPECT_EQ(format_tick(2.5, 2.5), "2.5");
  EXPECT_EQ(format_tick(1200, 200), "1200");
  // One value (or none) still gives a usable axis from 0.
  EXPECT_EQ(nice_ticks(7, 7).min, 0);
  EXPECT_GE(nice_ticks(7, 7).max, 7);
  EXPECT_EQ(nice_ticks(0, 0).max, 1);
  const AxisTicks trials = integer_ticks(1, 3);
  EXPECT_EQ(trials.step, 1);
  EXPECT_EQ(trials.values.front(), 1);
  EXPECT_EQ(trials.values.back(), 3);
}

BarChart sample_bars(std::size_t categories) {
  BarChart chart;
  chart.title = "Throughput per layer";
  chart.x_label = "layer";
  chart.y_label = "throughput (GOP/s)";
  chart.value_unit = "GOP/s";
  BarSeries a{"untuned", "", {}}, b{"tuned <best>", "", {}};
  for (std::size_t i = 0; i < categories; ++i) {
    chart.categories.push_back("a very long layer name number " + std::to_string(i));
    a.values.push_back(1.0 + static_cast<double>(i));
    b.values.push_back(i % 3 == 0 ? std::nullopt : std::optional<double>(2.5 * static_cast<double>(i)));
  }
  chart.series = {a, b};
  return chart;
}

TEST(SvgBarChartTest, HasTitleAxisLabelsLegendAndOneBarPerValue) {
  const std::string svg = render_bar_chart(sample_bars(4));
  EXPECT_EQ(unbalanced_tags(svg), "") << svg;
  EXPECT_NE(svg.find(">Throughput per layer</text>"), std::string::npos);
  EXPECT_NE(svg.find(">throughput (GOP/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">layer</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\">untuned</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\">tuned &lt;best&gt;</text>"), std::string::npos) << "names are escaped";
  EXPECT_EQ(count_of(svg, "class=\"bar\""), 4u + 2u);  // two of b's values are missing
  EXPECT_EQ(count_of(svg, "class=\"legend-swatch\""), 2u);
  // Long labels are shortened on the axis, with the full text in a tooltip.
  EXPECT_NE(svg.find("<title>a very long layer name number 3</title>a very long layer\u2026</text>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>a very long layer name number 2 \u2014 tuned &lt;best&gt;: 5.00 GOP/s</title>"),
            std::string::npos);
  // Four groups share the minimum width: the bars widen to 26 px (25 drawn, 1 px gap).
  EXPECT_NE(svg.find("width=\"25\" height="), std::string::npos);
  // The largest value is 5: ticks 0 to 5 in steps of 1.
  EXPECT_NE(svg.find("class=\"tick\">5</text>"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"tick\">6</text>"), std::string::npos);
}

TEST(SvgBarChartTest, CategoryDetailsGoToTooltips) {
  BarChart chart = sample_bars(2);
  chart.categories = {"a", "b"};
  chart.category_details = {"a: the whole story", ""};
  const std::string svg = render_bar_chart(chart);
  EXPECT_NE(svg.find("<title>a: the whole story</title>a</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>a: the whole story \u2014 untuned: 1.00 GOP/s</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>b</title>b</text>"), std::string::npos) << "no details: the label itself";
}

TEST(SvgBarChartTest, ManyCategoriesWidenTheChartInsteadOfSqueezingIt) {
  const std::string narrow = render_bar_chart(sample_bars(4));
  const std::string wide = render_bar_chart(sample_bars(100));
  EXPECT_NE(narrow.find("width=\"640\""), std::string::npos);
  // 100 groups of two 12 px bars and a 14 px gap: 3800 px of plot plus the margins.
  EXPECT_NE(wide.find("<svg width=\"3894\""), std::string::npos) << wide.substr(0, 120);
  EXPECT_EQ(unbalanced_tags(wide), "");
}

TEST(SvgLineChartTest, StepsWithTicksLabelsAndLegend) {
  LineChart chart;
  chart.title = "1. fc";
  chart.x_label = "trial";
  chart.y_label = "best so far (GOP/s)";
  chart.steps = true;
  chart.integer_x = true;
  chart.series = {{"random", "", {{1, 10}, {2, 10}, {3, 25}}}, {"model", "", {{1, 12}, {2, 30}}}};
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(unbalanced_tags(svg), "") << svg;
  EXPECT_NE(svg.find(">1. fc</text>"), std::string::npos);
  EXPECT_NE(svg.find(">trial</text>"), std::string::npos);
  EXPECT_NE(svg.find(">best so far (GOP/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\">random</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\">model</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<path "), 2u);
  EXPECT_NE(svg.find(" H"), std::string::npos) << "steps hold the value until the next trial";
  EXPECT_NE(svg.find("<title>model: 30.00 at 2</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("class=\"tick\">3</text>"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"tick\">1.5</text>"), std::string::npos) << "trial ticks are whole numbers";
}

TEST(SvgHeatMapTest, CellsScaleLabelsAndGaps) {
  HeatMap map;
  map.title = "GOP/s by tile and isa";
  map.x_label = "tile";
  map.y_label = "isa";
  map.value_label = "GOP/s";
  map.rows = {"scalar", "avx2"};
  map.columns = {"4x8", "6x16"};
  map.values = {{1.5, std::nullopt}, {20.0, 41.25}};
  map.tooltips = {{"isa=scalar;tile=4x8", ""}, {"isa=avx2;tile=4x8", "isa=avx2;tile=6x16"}};
  const std::string svg = render_heat_map(map);
  EXPECT_EQ(unbalanced_tags(svg), "") << svg;
  EXPECT_NE(svg.find(">GOP/s by tile and isa</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"axis-label\">tile</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"axis-label\">isa</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\">GOP/s</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"cell\""), 4u);
  EXPECT_NE(svg.find("isa scalar, tile 6x16: not measured"), std::string::npos);
  EXPECT_NE(svg.find("isa avx2, tile 6x16: 41.2 GOP/s\nisa=avx2;tile=6x16"), std::string::npos) << svg;
  // Lowest value darkest (viridis start), highest brightest (viridis end).
  EXPECT_NE(svg.find("fill=\"#440154\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#fde725\""), std::string::npos);
}

}  // namespace
}  // namespace qtune::reports::svg
