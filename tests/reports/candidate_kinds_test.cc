// qtune's kernels against the libraries per layer: the kind of a configuration key (of any qtune
// version), the best of each kind among a layer's measurements, and the report's "won by" column
// (Markdown, HTML, JSON), checked against numbers worked out by hand.
#include "qtune/reports/candidate_kinds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "qtune/reports/html_report.h"
#include "qtune/reports/json_report.h"
#include "qtune/reports/markdown_report.h"
#include "qtune/reports/report_data.h"
#include "reports/report_test_db.h"

namespace qtune::reports {
namespace {

const std::string kGemmKernel = "algo=qtune;isa=avx2;tile=6x16;kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1";
const std::string kOlderGemmKernel = "isa=avx2;tile=6x16;kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1";  // before algo

TEST(CandidateKinds, KindOfAKey) {
  EXPECT_EQ(candidate_kind("algo=onednn;threads=2"), "onednn");
  EXPECT_EQ(candidate_kind(kGemmKernel), "qtune");
  EXPECT_EQ(candidate_kind(kOlderGemmKernel), "qtune");
  EXPECT_EQ(candidate_kind("algo=indirect;isa=avx2;tile=6x16;kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1"), "qtune");
  EXPECT_EQ(candidate_kind("algo=depthwise;isa=scalar;dw_ctile=16;dw_wtile=1;threads=1"), "qtune");
}

TEST(CandidateKinds, MarginOfTheWinnerOverTheBestOfTheOtherKind) {
  testing::ScratchDir dir;
  auto db = records::TuningDb::open(dir.file("kinds.db"), records::OpenMode::create, records::opaque_keys());
  testing::Recorder r(db);
  const auto session = r.session("random");
  const Workload w = testing::w1();
  r.add(std::nullopt, w, kOlderGemmKernel, 1200);
  r.add(std::nullopt, w, kGemmKernel, 1000);
  EXPECT_FALSE(kind_margin(db.measurements()).has_value()) << "one kind only";
  EXPECT_EQ(format_kind_margin(std::nullopt), "-");
  r.fail(session, w, "algo=onednn;threads=1", "wrong_answer");
  EXPECT_FALSE(kind_margin(db.measurements()).has_value()) << "a failed library measurement does not count";

  r.add(std::nullopt, w, "algo=onednn;threads=2", 900);
  r.add(std::nullopt, w, "algo=onednn;threads=1", 800);
  auto margin = kind_margin(db.measurements());
  ASSERT_TRUE(margin.has_value());
  EXPECT_EQ(margin->winner.kind, "onednn");
  EXPECT_EQ(margin->winner.config_key, "algo=onednn;threads=1");
  EXPECT_DOUBLE_EQ(margin->winner.median_ns, 800);
  EXPECT_EQ(margin->runner_up.kind, "qtune");
  EXPECT_EQ(margin->runner_up.config_key, kGemmKernel);
  EXPECT_DOUBLE_EQ(margin->margin(), 1.25);
  EXPECT_EQ(format_kind_margin(margin), "onednn 1.25x");

  r.add(std::nullopt, w, "algo=qtune;isa=avx512vnni;tile=8x48;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1", 640);
  margin = kind_margin(db.measurements());
  ASSERT_TRUE(margin.has_value());
  EXPECT_EQ(margin->winner.kind, "qtune");
  EXPECT_EQ(format_kind_margin(margin), "qtune 1.25x");
}

// A layer tuned with both kinds shows the winner in every format; the others show "-".
TEST(CandidateKinds, ReportsShowWhichKindWonEachLayer) {
  testing::ScratchDir dir;
  const std::string path = dir.file("tuning.db");
  {
    auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
    testing::fill_test_database(db);  // w1's best: 800 ns (qtune's kernels)
    testing::Recorder(db).add(std::nullopt, testing::w1(), "algo=onednn;threads=1", 1000);
  }
  const auto db = records::TuningDb::open(path, records::OpenMode::read_only, records::opaque_keys());
  ReportOptions options;
  options.target_key = testing::kTarget;
  const ReportData data = gather_report_data(db, options);
  std::size_t with_margin = 0;
  for (const LayerReport& l : data.layers) {
    if (l.workload_key != testing::w1().key()) {
      EXPECT_FALSE(l.kinds.has_value()) << l.workload_key;
      continue;
    }
    ++with_margin;
    ASSERT_TRUE(l.kinds.has_value());
    EXPECT_EQ(l.kinds->winner.kind, "qtune");
    EXPECT_DOUBLE_EQ(l.kinds->winner.median_ns, 800);
    EXPECT_EQ(l.kinds->runner_up.config_key, "algo=onednn;threads=1");
  }
  EXPECT_EQ(with_margin, 1u);
  const std::string markdown = render_markdown(data);
  EXPECT_NE(markdown.find("| won by |"), std::string::npos);
  EXPECT_NE(markdown.find("| qtune 1.25x |"), std::string::npos) << markdown;
  EXPECT_NE(render_html(data).find("qtune 1.25x"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(render_json(data));
  std::size_t in_json = 0;
  for (const auto& layer : json.at("layers")) {
    if (layer.at("won_by").is_null()) continue;
    ++in_json;
    EXPECT_EQ(layer.at("workload"), testing::w1().key());
    EXPECT_EQ(layer.at("won_by").at("winner").at("kind"), "qtune");
    EXPECT_EQ(layer.at("won_by").at("runner_up").at("kind"), "onednn");
    EXPECT_DOUBLE_EQ(layer.at("won_by").at("margin").get<double>(), 1.25);
  }
  EXPECT_EQ(in_json, 1u);
}

}  // namespace
}  // namespace qtune::reports
