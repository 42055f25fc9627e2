// The HTML report of a real database: one self-contained page with every section and chart
// (titles, axis labels, legends), the sortable table's rows, no external resources, well-formed
// SVG, and a 100-layer network that stays readable (scrolling bar chart, paged curves).
#include "qtune/reports/html_report.h"

#include <gtest/gtest.h>


#include "qtune/reports/report_data.h"
#include "reports/markup_check.h"
#include "reports/report_test_db.h"

namespace qtune::reports {
namespace {

using testing::count_of;
using testing::svg_elements;
using testing::unbalanced_tags;

struct Cell {
  std::string sort_value, title, text;
};

// The <td> cells of one table row: data-value, title and content.
std::vector<Cell> cells_of(const std::string& row) {
  auto attribute = [](const std::string& tag, const std::string& name) {
    const auto at = tag.find(" " + name + "=\"");
    if (at == std::string::npos) return std::string();
    const auto begin = at + name.size() + 3;
    return tag.substr(begin, tag.find('"', begin) - begin);
  };
  std::vector<Cell> cells;
  for (auto at = row.find("<td"); at != std::string::npos; at = row.find("<td", at + 1)) {
    const auto tag_end = row.find('>', at);
    const std::string tag = row.substr(at, tag_end - at);
    const auto close = row.find("</td>", tag_end);
    cells.push_back({attribute(tag, "data-value"), attribute(tag, "title"), row.substr(tag_end + 1, close - tag_end - 1)});
  }
  return cells;
}

double gops_at_w1(double ns) { return testing::gops_at(testing::w1(), ns); }

class HtmlReportTest : public ::testing::Test {
 protected:
  std::string render(ReportOptions options = {}) {
    {
      auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
      if (db.measurements().empty()) testing::fill_test_database(db);
    }
    const auto db = records::TuningDb::open(path, records::OpenMode::read_only, records::opaque_keys());
    options.target_key = testing::kTarget;
    return render_html(gather_report_data(db, options));
  }

  testing::ScratchDir dir;
  std::string path = dir.file("tuning.db");
};

TEST_F(HtmlReportTest, IsOneWellFormedSelfContainedPage) {
  const std::string html = render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(unbalanced_tags(html), "");
  EXPECT_EQ(count_of(html, "<html"), 1u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  // Nothing to fetch: no URLs, no external scripts, stylesheets, images or fonts.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  for (const auto& svg : svg_elements(html)) EXPECT_EQ(unbalanced_tags(svg), "") << svg.substr(0, 200);
}

TEST_F(HtmlReportTest, SummaryStatesTheFigures) {
  const std::string html = render();
  EXPECT_NE(html.find("<th>target</th><td>AMD EPYC 7B13 (x86_64)</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>sessions</th><td>2 (1 model, 1 random)</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>layers tuned</th><td>3 of 3</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>trials</th><td>13 (2 failed: 1 timeout, 1 wrong_answer)</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>network time, untuned</th><td>15.00 us (all 3 layers, each tuned workload once)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>network time, tuned</th><td>5.30 us"), std::string::npos);
  EXPECT_NE(html.find("<th>speedup over untuned</th><td>2.83x</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>network time, oneDNN</th><td>4.10 us (2 of 3 layers timed by qtune run)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>speedup over oneDNN</th><td>1.04x</td>"), std::string::npos);
}

TEST_F(HtmlReportTest, EveryChartHasTitleAxisLabelsAndLegend) {
  ReportOptions options;
  options.focus_layer = "1";
  const std::string html = render(options);
  const auto svgs = svg_elements(html);
  // Bar chart of layers, one tuning-curve chart per layer, the heat map, the fuse pairs.
  ASSERT_EQ(svgs.size(), 1u + 3u + 1u + 1u);

  const std::string& bars = svgs[0];
  EXPECT_NE(bars.find("Throughput per layer: untuned default vs tuned best vs oneDNN</text>"), std::string::npos);
  EXPECT_NE(bars.find("class=\"axis-label\">throughput (GOP/s)</text>"), std::string::npos);
  EXPECT_NE(bars.find("class=\"axis-label\">layer (network order)</text>"), std::string::npos);
  for (const char* series : {"untuned default", "tuned best", "oneDNN"})
    EXPECT_NE(bars.find(std::string("class=\"legend\">") + series + "</text>"), std::string::npos) << series;
  EXPECT_EQ(count_of(bars, "class=\"bar\""), 3u + 3u + 2u);  // oneDNN timed 2 layers

  // Curves: most time first (w2, w3, w1); w1's chart has both strategies.
  EXPECT_NE(svgs[1].find(">2. gemm 784x128x1152</text>"), std::string::npos) << svgs[1].substr(0, 400);
  const std::string& w1_curves = svgs[3];
  EXPECT_NE(w1_curves.find(">1. gemm 256x256x256</text>"), std::string::npos);
  EXPECT_NE(w1_curves.find("class=\"axis-label\">best so far (GOP/s)</text>"), std::string::npos);
  EXPECT_NE(w1_curves.find("class=\"axis-label\">trial (measurements of this layer by the strategy)</text>"),
            std::string::npos);
  EXPECT_NE(w1_curves.find("class=\"legend\">random</text>"), std::string::npos);
  EXPECT_NE(w1_curves.find("class=\"legend\">model</text>"), std::string::npos);
  EXPECT_EQ(count_of(w1_curves, "<path "), 2u);

  const std::string& heat = svgs[4];
  EXPECT_NE(heat.find("GOP/s by tile and instruction set, layer 1 (best over the other knobs)</text>"), std::string::npos);
  EXPECT_NE(heat.find("class=\"axis-label\">isa</text>"), std::string::npos);
  EXPECT_NE(heat.find("class=\"axis-label\">tile (rows x columns of the micro-kernel)</text>"), std::string::npos);
  EXPECT_NE(heat.find("class=\"legend\">GOP/s</text>"), std::string::npos);
  EXPECT_EQ(count_of(heat, "class=\"cell\""), 2u * 3u);

  const std::string& fuse = svgs[5];
  EXPECT_NE(fuse.find("Fused vs separate requantization, layer 1"), std::string::npos);
  EXPECT_NE(fuse.find("class=\"legend\">fused (fuse=1)</text>"), std::string::npos);
  EXPECT_NE(fuse.find("class=\"legend\">separate (fuse=0)</text>"), std::string::npos);
  EXPECT_NE(fuse.find("class=\"axis-label\">throughput (GOP/s)</text>"), std::string::npos);
  EXPECT_EQ(count_of(fuse, "class=\"bar\""), 6u);
  // Pairs are labelled by the knobs that differ between them, with the whole configuration on hover.
  EXPECT_NE(fuse.find("<title>isa=avx2;tile=6x16;kc=128;mc=0;nc=0;pack_a=1;threads=1</title>tile=6x16;kc=128</text>"),
            std::string::npos)
      << fuse;
  // The median ratio is 1.125 up to rounding of the throughputs: printed as 1.12x or 1.13x.
  const std::string fuse_text =
      "3 pairs of configurations that differ only in <code>fuse</code>: fused is faster in 2; median fused / separate "
      "throughput 1.1";
  const auto at = html.find(fuse_text);
  ASSERT_NE(at, std::string::npos);
  const std::string ratio_end = html.substr(at + fuse_text.size(), 3);
  EXPECT_TRUE(ratio_end == "2x." || ratio_end == "3x.") << ratio_end;
}

TEST_F(HtmlReportTest, TableHasOneSortableRowPerLayer) {
  const std::string html = render();
  const auto start = html.find("<table class=\"sortable\" id=\"best-configs\">");
  ASSERT_NE(start, std::string::npos);
  const std::string table = html.substr(start, html.find("</table>", start) - start);
  EXPECT_EQ(count_of(table, "</th>"), 13u);
  EXPECT_EQ(count_of(table, "<tr>"), 1u + 3u);
  // Row of w1: 8 trials, 1 failure, 5x, found by model, with its configuration; numbers sort by value.
  const auto row_start = table.find("<tr><td class=\"num\" data-value=\"1\">1</td>");
  ASSERT_NE(row_start, std::string::npos);
  const auto cells = cells_of(table.substr(row_start, table.find("</tr>", row_start) - row_start));
  ASSERT_EQ(cells.size(), 13u);
  EXPECT_EQ(cells[12].text, "-");  // won by: only qtune's kernels were measured
  EXPECT_EQ(cells[1].text, "gemm 256x256x256");
  EXPECT_EQ(cells[1].title, testing::w1().key());
  const std::vector<std::pair<std::string, double>> numbers = {
      {"1", 1}, {"8", 8}, {"1", 1}, {"8388.61", gops_at_w1(4000)}, {"41943.04", gops_at_w1(800)},
      {"5.00x", 5}, {"19737.90", gops_at_w1(1700)}, {"15.1%", 800.0 / 5300}};
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    SCOPED_TRACE(i + 2);
    EXPECT_EQ(cells[i + 2].text, numbers[i].first);
    EXPECT_NEAR(std::stod(cells[i + 2].sort_value), numbers[i].second, 1e-9 * numbers[i].second);
  }
  const std::string best = testing::config("avx2", "6x16", 128, 1);
  EXPECT_EQ(cells[10].text, "<code>" + best + "</code>");
  EXPECT_EQ(cells[10].sort_value, best);
  EXPECT_EQ(cells[11].text, "model");
  EXPECT_NE(html.find("document.querySelectorAll('table.sortable')"), std::string::npos);
}

TEST_F(HtmlReportTest, HundredLayersScrollAndPage) {
  {
    auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
    testing::Recorder r(db);
    const auto session = r.session("random");
    std::vector<records::MeasurementRecord> rows;
    for (int i = 0; i < 100; ++i) {
      const Workload w = testing::gemm(8 * (i + 1), 64, 64 + 8 * i);
      rows.push_back(r.correct(session, w, testing::default_config(), 5000 + 10 * i));
      rows.push_back(r.correct(session, w, testing::config("avx2", "4x8", 256, 1), 3000 + 10 * i));
      rows.push_back(r.correct(session, w, testing::config("avx2", "4x8", 256, 0), 3500 + 10 * i));
    }
    db.add_measurements(rows);
  }
  const std::string html = render();
  EXPECT_EQ(unbalanced_tags(html), "");
  const auto svgs = svg_elements(html);
  ASSERT_EQ(svgs.size(), 1u + 100u + 1u + 1u);
  // The bar chart keeps its bars readable and scrolls: 100 groups of 2 bars.
  EXPECT_NE(html.find("<div class=\"scroll\"><svg width=\"3894\""), std::string::npos);
  EXPECT_EQ(count_of(svgs[0], "class=\"bar\""), 200u);
  // Curves come 12 at a time; the other 88 fold into 8 pages.
  EXPECT_EQ(count_of(html, "<details class=\"curve-page\">"), 8u);
  EXPECT_NE(html.find("<summary>Layers ranked 13\u201324 of 100 by time</summary>"), std::string::npos);
  EXPECT_NE(html.find("<summary>Layers ranked 97\u2013100 of 100 by time</summary>"), std::string::npos);
  const auto start = html.find("id=\"best-configs\"");
  EXPECT_EQ(count_of(html.substr(start, html.find("</table>", start) - start), "<tr>"), 101u);
}

}  // namespace
}  // namespace qtune::reports
