// The Markdown and JSON reports of a real database: both parse, carry the figures, and agree with
// each other row by row.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "qtune/reports/json_report.h"
#include "qtune/reports/markdown_report.h"
#include "qtune/reports/report_data.h"
#include "qtune/reports/report_format.h"
#include "qtune/reports/text_format.h"
#include "reports/report_test_db.h"

namespace qtune::reports {
namespace {

using nlohmann::json;

// The cells of a Markdown table row ("| a | b |" -> {"a", "b"}), honouring escaped pipes.
std::vector<std::string> markdown_cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string current;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      current += '|';
      ++i;
    } else if (line[i] == '|') {
      const auto first = current.find_first_not_of(' '), last = current.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : current.substr(first, last - first + 1));
      current.clear();
    } else {
      current += line[i];
    }
  }
  return cells;
}

// The rows of the table that follows `heading` (header row first, separator dropped).
std::vector<std::vector<std::string>> table_after(const std::string& markdown, const std::string& heading) {
  std::istringstream in(markdown.substr(markdown.find(heading)));
  std::string line;
  std::vector<std::vector<std::string>> rows;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) == 0) {
      in_table = true;
      if (line.find("---") == std::string::npos) rows.push_back(markdown_cells_of(line));
    } else if (in_table) {
      break;
    }
  }
  return rows;
}

class TextFormatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
      testing::fill_test_database(db);
    }
    const auto db = records::TuningDb::open(path, records::OpenMode::read_only, records::opaque_keys());
    ReportOptions options;
    options.target_key = testing::kTarget;
    options.workloads = testing::test_network();
    options.workloads_origin = "net.json";
    options.focus_layer = "2";  // proj = w1, the layer with fuse pairs
    data = gather_report_data(db, options);
  }

  testing::ScratchDir dir;
  std::string path = dir.file("tuning.db");
  ReportData data;
};

TEST_F(TextFormatsTest, JsonParsesAndHoldsTheData) {
  const json doc = json::parse(render_json(data));
  EXPECT_EQ(doc["format"], "qtune-report/1");
  EXPECT_EQ(doc["target"]["key"], testing::kTarget);
  EXPECT_EQ(doc["network"], "test-net");
  EXPECT_EQ(doc["summary"]["layers"], 3);
  EXPECT_EQ(doc["summary"]["layers_tuned"], 2);
  EXPECT_EQ(doc["summary"]["trials"], 11);
  EXPECT_EQ(doc["summary"]["failures"], 2);
  EXPECT_EQ(doc["summary"]["failure_kinds"]["timeout"], 1);
  EXPECT_DOUBLE_EQ(doc["summary"]["network_time"]["untuned_ns"].get<double>(), 32000);
  EXPECT_DOUBLE_EQ(doc["summary"]["network_time"]["tuned_ns"].get<double>(), 10600);
  EXPECT_DOUBLE_EQ(doc["summary"]["onednn"]["onednn_ns"].get<double>(), 3 * 2400 + 2 * 1700);
  ASSERT_EQ(doc["layers"].size(), 3u);
  const json& proj = doc["layers"][1];
  EXPECT_EQ(proj["name"], "proj");
  EXPECT_EQ(proj["count"], 2);
  EXPECT_EQ(proj["tuned"]["config"], testing::config("avx2", "6x16", 128, 1));
  EXPECT_DOUBLE_EQ(proj["speedup"].get<double>(), 5.0);
  EXPECT_EQ(proj["run"]["uid"], "run-1");
  EXPECT_DOUBLE_EQ(proj["run"]["onednn"]["median_ns"].get<double>(), 1700);
  EXPECT_EQ(proj["run"]["cache"], "warm");
  EXPECT_EQ(proj["run"]["disturbed"], false);
  EXPECT_EQ(proj["run"]["verdict_vs_default"], "faster");
  EXPECT_EQ(proj["run"]["verdict_vs_onednn"], "faster");
  EXPECT_TRUE(doc["layers"][2]["run"]["cache"].is_null()) << "logits was never run";
  ASSERT_EQ(proj["curves"].size(), 2u);
  EXPECT_EQ(proj["curves"][0]["strategy"], "random");
  EXPECT_EQ(proj["curves"][0]["points"].size(), 6u);
  const json& logits = doc["layers"][2];
  EXPECT_TRUE(logits["tuned"].is_null());
  EXPECT_TRUE(logits["speedup"].is_null());
  EXPECT_EQ(logits["trials"], 0);
  EXPECT_EQ(doc["focus"]["layer"], 2);
  EXPECT_EQ(doc["focus"]["heat_map"]["isas"], json({"scalar", "avx2"}));
  EXPECT_EQ(doc["focus"]["fuse"]["total_pairs"], 3);
  EXPECT_EQ(doc["sessions"].size(), 2u);
}

TEST_F(TextFormatsTest, MarkdownAndJsonAgree) {
  const std::string md = render_markdown(data);
  const json doc = report_json(data);
  EXPECT_EQ(md.rfind("# qtune report: test-net\n", 0), 0u);
  EXPECT_EQ(md.find("<svg"), std::string::npos) << "Markdown has no pictures";

  // Summary rows.
  const auto summary = table_after(md, "## Summary");
  auto summary_value = [&](const std::string& label) {
    for (const auto& row : summary)
      if (row.size() == 2 && row[0] == label) return row[1];
    ADD_FAILURE() << "no summary row " << label;
    return std::string();
  };
  EXPECT_EQ(summary_value("layers tuned"), std::to_string(doc["summary"]["layers_tuned"].get<int>()) + " of 3");
  EXPECT_EQ(summary_value("trials"), "11 (2 failed: 1 timeout, 1 wrong_answer)");
  EXPECT_EQ(summary_value("qtune run"), "2 of 3 layers; cache warm; tuned vs default: faster 1 no verdict 1; none disturbed");
  EXPECT_EQ(summary_value("network time, untuned"),
            format_time_ns(doc["summary"]["network_time"]["untuned_ns"].get<double>()) +
                " (2 of 3 layers, layers weighted by their count in net.json)");
  EXPECT_EQ(summary_value("speedup over untuned"), format_speedup(doc["summary"]["network_time"]["speedup"].get<double>()));

  // The layers table, row by row against the JSON.
  const auto layers = table_after(md, "## Layers");
  ASSERT_EQ(layers.size(), 1u + 3u);
  EXPECT_EQ(layers[0][6], "tuned GOP/s");
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& row = layers[i + 1];
    const json& l = doc["layers"][i];
    SCOPED_TRACE(l["name"].get<std::string>());
    ASSERT_EQ(row.size(), 13u);
    EXPECT_EQ(row[0], std::to_string(l["index"].get<int>()));
    EXPECT_EQ(row[1], l["name"]);
    EXPECT_EQ(row[2], std::to_string(l["count"].get<int>()));
    EXPECT_EQ(row[3], std::to_string(l["trials"].get<int>()));
    EXPECT_EQ(row[4], std::to_string(l["failures"].get<int>()));
    auto gops = [](const json& t) { return t.is_null() ? std::string("-") : format_gops(t["gops"].get<double>()); };
    EXPECT_EQ(row[5], gops(l["untuned"]));
    EXPECT_EQ(row[6], gops(l["tuned"]));
    EXPECT_EQ(row[7], l["speedup"].is_null() ? "-" : format_speedup(l["speedup"].get<double>()));
    EXPECT_EQ(row[8], gops(l["run"]["onednn"]));
    EXPECT_EQ(row[9], l["share_of_time"].is_null() ? "-" : format_percent(l["share_of_time"].get<double>()));
    EXPECT_EQ(row[10], l["tuned"].is_null() ? "-" : "`" + l["tuned"]["config"].get<std::string>() + "`");
    EXPECT_EQ(row[12], "-");  // won by: only qtune's kernels were measured
    EXPECT_TRUE(l["won_by"].is_null());
  }
  EXPECT_EQ(layers[2][6], "41943.04");  // w1: 2 * 256^3 ops in 800 ns
  EXPECT_EQ(layers[3][6], "-");

  // The heat map as a table: rows are isas, columns tiles, cells the JSON's values.
  const auto heat = table_after(md, "### GOP/s by instruction set and tile");
  const json& map = doc["focus"]["heat_map"];
  ASSERT_EQ(heat.size(), 1u + map["isas"].size());
  for (std::size_t r = 0; r < map["isas"].size(); ++r) {
    EXPECT_EQ(heat[r + 1][0], map["isas"][r]);
    for (std::size_t c = 0; c < map["tiles"].size(); ++c) {
      EXPECT_EQ(heat[0][c + 1], map["tiles"][c]);
      const json& v = map["gops"][r][c];
      EXPECT_EQ(heat[r + 1][c + 1], v.is_null() ? "-" : format_gops(v.get<double>()));
    }
  }
  const auto pairs = table_after(md, "### Fused vs separate requantization");
  ASSERT_EQ(pairs.size(), 1u + doc["focus"]["fuse"]["pairs"].size());
  EXPECT_EQ(pairs[1][0], "`" + doc["focus"]["fuse"]["pairs"][0]["config_without_fuse"].get<std::string>() + "`");

  const auto sessions = table_after(md, "## Sessions");
  ASSERT_EQ(sessions.size(), 1u + doc["sessions"].size());
  EXPECT_EQ(sessions[1][1], "random");
  EXPECT_EQ(sessions[2][1], "model");
}

TEST_F(TextFormatsTest, FormatsByName) {
  EXPECT_EQ(parse_report_format("html"), ReportFormat::html);
  EXPECT_EQ(parse_report_format("md"), ReportFormat::markdown);
  EXPECT_EQ(parse_report_format("json"), ReportFormat::json);
  EXPECT_FALSE(parse_report_format("pdf"));
  EXPECT_EQ(render_report(data, ReportFormat::markdown), render_markdown(data));
  EXPECT_EQ(render_report(data, ReportFormat::json), render_json(data));
  EXPECT_EQ(render_report(data, ReportFormat::html).rfind("<!DOCTYPE html>", 0), 0u);
}

}  // namespace
}  // namespace qtune::reports
