// Gathering the report from a real database: every figure checked against numbers worked out by
// hand from what report_test_db.h inserts.
#include "qtune/reports/report_data.h"

#include <gtest/gtest.h>

#include "reports/report_test_db.h"

namespace qtune::reports {
namespace {

using testing::gops_at;
using testing::w1;
using testing::w2;
using testing::w3;

class ReportDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
    testing::fill_test_database(db);
  }

  ReportData gather(ReportOptions options = {}) {
    const auto db = records::TuningDb::open(path, records::OpenMode::read_only, records::opaque_keys());
    return gather_report_data(db, options);
  }

  testing::ScratchDir dir;
  std::string path = dir.file("tuning.db");
};

TEST_F(ReportDataTest, SummaryCountsTrialsFailuresAndNetworkTime) {
  ReportOptions options;
  options.target_key = testing::kTarget;
  const ReportData data = gather(options);
  EXPECT_EQ(data.target_key, testing::kTarget);
  EXPECT_EQ(data.target_cpu, "AMD EPYC 7B13");
  EXPECT_EQ(data.target_arch, "x86_64");
  ASSERT_EQ(data.other_targets.size(), 1u);
  EXPECT_EQ(data.other_targets[0], testing::kOtherTarget);

  const ReportSummary& s = data.summary;
  EXPECT_EQ(s.layers, 3u);
  EXPECT_EQ(s.layers_tuned, 3u);
  EXPECT_EQ(s.trials, 13);
  EXPECT_EQ(s.failures, 2);
  EXPECT_EQ(s.failure_kinds.at("wrong_answer"), 1);
  EXPECT_EQ(s.failure_kinds.at("timeout"), 1);
  EXPECT_EQ(s.untuned_vs_tuned.layers, 3u);
  EXPECT_DOUBLE_EQ(s.untuned_vs_tuned.baseline_ns, 15000);
  EXPECT_DOUBLE_EQ(s.untuned_vs_tuned.tuned_ns, 5300);
  ASSERT_TRUE(s.onednn_vs_tuned);
  EXPECT_EQ(s.onednn_vs_tuned->layers, 2u);
  EXPECT_DOUBLE_EQ(s.onednn_vs_tuned->baseline_ns, 4100);
  EXPECT_DOUBLE_EQ(s.onednn_vs_tuned->tuned_ns, 3950);

  ASSERT_EQ(data.sessions.size(), 2u);
  EXPECT_EQ(data.sessions[0].strategy, "random");
  EXPECT_EQ(data.sessions[0].trials, 9);
  EXPECT_EQ(data.sessions[0].failures, 2);
  EXPECT_EQ(data.sessions[0].status, "completed");
  EXPECT_EQ(data.sessions[1].strategy, "model");
  EXPECT_EQ(data.sessions[1].trials, 4);
  EXPECT_EQ(data.sessions[1].status, "interrupted");
}

TEST_F(ReportDataTest, LayersHaveUntunedTunedAndRunTimings) {
  const ReportData data = gather();
  ASSERT_EQ(data.layers.size(), 3u);
  const LayerReport& l1 = data.layers[0];
  EXPECT_EQ(l1.index, 1u);
  EXPECT_EQ(l1.workload_key, w1().key());
  EXPECT_EQ(l1.name, w1().describe());
  EXPECT_EQ(l1.op, "gemm");
  EXPECT_EQ(l1.trials, 8);
  EXPECT_EQ(l1.failures, 1);
  ASSERT_TRUE(l1.untuned);
  EXPECT_EQ(l1.untuned->config_key, testing::default_config());
  EXPECT_DOUBLE_EQ(l1.untuned->median_ns, 4000);
  ASSERT_TRUE(l1.tuned);
  EXPECT_EQ(l1.tuned->config_key, testing::config("avx2", "6x16", 128, 1));
  EXPECT_DOUBLE_EQ(l1.tuned->gops, gops_at(w1(), 800));
  EXPECT_EQ(l1.tuned_strategy, "model");
  EXPECT_EQ(l1.tuned_at_trial, 1);
  EXPECT_DOUBLE_EQ(*l1.speedup(), 5.0);
  // The latest run wins: run-0's oneDNN timing of w1 is superseded by run-1's.
  EXPECT_EQ(l1.run_uid, "run-1");
  ASSERT_TRUE(l1.onednn);
  EXPECT_DOUBLE_EQ(l1.onednn->median_ns, 1700);
  ASSERT_TRUE(l1.run_default);
  EXPECT_DOUBLE_EQ(l1.run_default->median_ns, 4100);

  const LayerReport& l2 = data.layers[1];
  EXPECT_EQ(l2.trials, 3);
  EXPECT_EQ(l2.failures, 1);
  EXPECT_DOUBLE_EQ(l2.untuned->median_ns, 8000);
  EXPECT_DOUBLE_EQ(l2.tuned->median_ns, 3000);
  EXPECT_FALSE(l2.run_default);
  const LayerReport& l3 = data.layers[2];
  EXPECT_EQ(l3.tuned_strategy, "model");
  EXPECT_FALSE(l3.onednn);
  EXPECT_EQ(l3.run_uid, "");
}

// The latest run's cache state and its verdicts, by qtune run's rule on the stored quartiles
// (report_test_db.h: +-1% around each median, 5 repetitions).
TEST_F(ReportDataTest, RunTimingsCarryTheirCacheStateAndVerdicts) {
  const ReportData data = gather();
  const LayerReport& l1 = data.layers[0];
  EXPECT_EQ(l1.run_cache, "warm");
  EXPECT_FALSE(l1.run_disturbed);
  EXPECT_EQ(l1.run_vs_default, "faster");  // 850 against 4100
  EXPECT_EQ(l1.run_vs_onednn, "faster");   // 850 against 1700
  const LayerReport& l2 = data.layers[1];
  EXPECT_EQ(l2.run_vs_default, "-") << "the run stored no default timing of this layer";
  EXPECT_EQ(l2.run_vs_onednn, "slower");  // 3100 against 2400
  const LayerReport& l3 = data.layers[2];
  EXPECT_EQ(l3.run_cache, "");
  EXPECT_EQ(l3.run_vs_default, "-");
}

// Rows stored before schema version 3 have neither cache state nor quartiles: no verdict, and the
// cache reads as not recorded; a disturbed timing marks its layer.
TEST_F(ReportDataTest, RunsWithoutQuartilesHaveNoVerdict) {
  {
    auto db = records::TuningDb::open(path, records::OpenMode::existing, records::opaque_keys());
    records::NetworkRunRecord row;
    row.run_uid = "run-2";
    row.target_key = testing::kTarget;
    row.workload_key = w1().key();
    row.config_key = testing::config("avx2", "6x16", 128, 1);
    row.cache = "cold";
    auto tuned = row, untuned = row;
    tuned.impl = records::kImplTuned;
    tuned.median_ns = 900;
    tuned.disturbed = true;
    untuned.impl = records::kImplDefault;
    untuned.config_key = testing::default_config();
    untuned.median_ns = 4000;
    records::add_network_runs(db, {tuned, untuned});
  }
  const ReportData data = gather();
  const LayerReport& l1 = data.layers[0];
  EXPECT_EQ(l1.run_uid, "run-2");
  EXPECT_EQ(l1.run_cache, "cold");
  EXPECT_TRUE(l1.run_disturbed);
  EXPECT_EQ(l1.run_vs_default, "-");
  EXPECT_EQ(l1.run_vs_onednn, "-");
}

TEST_F(ReportDataTest, CurvesAreBestSoFarPerStrategy) {
  const ReportData data = gather();
  const LayerReport& l1 = data.layers[0];
  ASSERT_EQ(l1.curves.size(), 2u);
  const TuningCurve& random = l1.curves[0];
  EXPECT_EQ(random.strategy, "random");
  ASSERT_EQ(random.points.size(), 6u);
  const double expected_ns[] = {4000, 2000, 2000, 1200, 1000, 1000};  // the wrong answer keeps the best
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(random.points[i].trial, static_cast<std::int64_t>(i + 1));
    ASSERT_TRUE(random.points[i].best_gops);
    EXPECT_DOUBLE_EQ(*random.points[i].best_gops, gops_at(w1(), expected_ns[i])) << "trial " << i + 1;
  }
  const TuningCurve& model = l1.curves[1];
  EXPECT_EQ(model.strategy, "model");
  ASSERT_EQ(model.points.size(), 2u);
  EXPECT_DOUBLE_EQ(*model.points[1].best_gops, gops_at(w1(), 800));
  EXPECT_EQ(model.sessions, std::vector<std::int64_t>{2});

  // w2's curve starts with a correct trial and ends with an error that changes nothing.
  const TuningCurve& w2_random = data.layers[1].curves.at(0);
  ASSERT_EQ(w2_random.points.size(), 3u);
  EXPECT_DOUBLE_EQ(*w2_random.points[2].best_gops, gops_at(w2(), 3000));
}

TEST_F(ReportDataTest, FocusDefaultsToTheLayerWithMostTime) {
  const ReportData data = gather();
  ASSERT_TRUE(data.focus);
  EXPECT_EQ(data.focus->layer, 1u);  // w2: 3000 ns tuned, more than w3's 1500 and w1's 800
  EXPECT_EQ(data.focus->chosen_by, "most time");
}

TEST_F(ReportDataTest, HeatMapAndFusePairsOfTheChosenLayer) {
  ReportOptions options;
  options.focus_layer = "1";
  const ReportData data = gather(options);
  ASSERT_TRUE(data.focus);
  EXPECT_EQ(data.focus->layer, 0u);
  EXPECT_EQ(data.focus->chosen_by, "--layer");

  const KnobHeatMap& map = data.focus->heat_map;
  ASSERT_EQ(map.isas, (std::vector<std::string>{"scalar", "avx2"}));
  ASSERT_EQ(map.tiles.size(), 3u);
  auto cell = [&](const std::string& isa, const std::string& tile) -> std::optional<double> {
    for (std::size_t r = 0; r < map.isas.size(); ++r)
      for (std::size_t c = 0; c < map.tiles.size(); ++c)
        if (map.isas[r] == isa && map.tiles[c] == tile) return map.gops[r][c];
    ADD_FAILURE() << "no cell " << isa << "/" << tile;
    return std::nullopt;
  };
  EXPECT_DOUBLE_EQ(*cell("scalar", "1x8"), gops_at(w1(), 4000));
  EXPECT_FALSE(cell("scalar", "4x8")) << "only a wrong answer was measured there";
  EXPECT_DOUBLE_EQ(*cell("avx2", "4x8"), gops_at(w1(), 2000));   // best of fused 2000 / separate 2500
  EXPECT_DOUBLE_EQ(*cell("avx2", "6x16"), gops_at(w1(), 800));   // best over kc and fuse
  EXPECT_EQ(map.configs_without_tile, 0u);

  const FuseEffect& fuse = data.focus->fuse;
  EXPECT_EQ(fuse.total_pairs, 3u);
  EXPECT_EQ(fuse.fused_faster, 2u);
  ASSERT_TRUE(fuse.median_ratio);
  EXPECT_NEAR(*fuse.median_ratio, 1.125, 1e-12);
  ASSERT_EQ(fuse.pairs.size(), 3u);
  // Fastest pair first: kc=128 (800 ns fused).
  EXPECT_EQ(fuse.pairs[0].shared_config, "isa=avx2;tile=6x16;kc=128;mc=0;nc=0;pack_a=1;threads=1");
  EXPECT_DOUBLE_EQ(fuse.pairs[0].fused_gops, gops_at(w1(), 800));
  EXPECT_DOUBLE_EQ(fuse.pairs[0].separate_gops, gops_at(w1(), 900));

  options.focus_layer = w3().key();
  EXPECT_EQ(gather(options).focus->layer, 2u);
  options.max_fuse_pairs = 1;
  options.focus_layer = "1";
  const ReportData capped = gather(options);
  EXPECT_EQ(capped.focus->fuse.pairs.size(), 1u);
  EXPECT_EQ(capped.focus->fuse.total_pairs, 3u);
}

TEST_F(ReportDataTest, WorkloadsFileOrdersAndWeighsLayers) {
  ReportOptions options;
  options.workloads = testing::test_network();
  options.workloads_origin = "net.json";
  const ReportData data = gather(options);
  EXPECT_EQ(data.network, "test-net");
  ASSERT_EQ(data.layers.size(), 3u);
  EXPECT_EQ(data.layers[0].name, "fc");
  EXPECT_EQ(data.layers[0].count, 3);
  EXPECT_EQ(data.layers[1].name, "proj");
  EXPECT_EQ(data.layers[2].name, "logits");
  EXPECT_EQ(data.layers[2].trials, 0);
  EXPECT_FALSE(data.layers[2].tuned);
  EXPECT_TRUE(data.layers[2].curves.empty());

  const ReportSummary& s = data.summary;
  EXPECT_EQ(s.layers, 3u);
  EXPECT_EQ(s.layers_tuned, 2u);
  EXPECT_EQ(s.trials, 11);  // w3 is not in the file
  EXPECT_EQ(s.untuned_vs_tuned.layers, 2u);
  EXPECT_DOUBLE_EQ(s.untuned_vs_tuned.baseline_ns, 3 * 8000 + 2 * 4000);
  EXPECT_DOUBLE_EQ(s.untuned_vs_tuned.tuned_ns, 3 * 3000 + 2 * 800);
  EXPECT_DOUBLE_EQ(s.onednn_vs_tuned->baseline_ns, 3 * 2400 + 2 * 1700);
  EXPECT_DOUBLE_EQ(s.onednn_vs_tuned->tuned_ns, 3 * 3100 + 2 * 850);
  EXPECT_DOUBLE_EQ(total_network_ns(data), 3 * 3000 + 2 * 800);
  EXPECT_EQ(data.focus->layer, 0u);
}

TEST_F(ReportDataTest, TargetChoiceAndBadChoicesNameWhatExists) {
  ReportOptions options;
  options.preferred_target_key = testing::kOtherTarget;
  const ReportData other = gather(options);
  EXPECT_EQ(other.target_key, testing::kOtherTarget);
  EXPECT_EQ(other.summary.trials, 1);
  ASSERT_EQ(other.layers.size(), 1u);
  EXPECT_DOUBLE_EQ(other.layers[0].untuned->median_ns, 700);
  EXPECT_DOUBLE_EQ(other.layers[0].tuned->median_ns, 700);
  EXPECT_FALSE(other.summary.onednn_vs_tuned) << "the runs were on the other target";

  options = {};
  options.preferred_target_key = "arch=x86_64;cpu=unmeasured";
  EXPECT_EQ(gather(options).target_key, testing::kTarget) << "falls back to the most measured target";

  options = {};
  options.target_key = "arch=riscv64;cpu=none";
  try {
    gather(options);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no measurements for target 'arch=riscv64;cpu=none'"), std::string::npos) << message;
    EXPECT_NE(message.find(testing::kTarget), std::string::npos) << message;
  }

  options = {};
  options.focus_layer = "4";
  EXPECT_THROW(gather(options), std::invalid_argument);
  options.focus_layer = "gemm:m=1";
  EXPECT_THROW(gather(options), std::invalid_argument);
}

TEST_F(ReportDataTest, EmptyDatabaseIsAClearError) {
  const std::string empty = dir.file("empty.db");
  { records::TuningDb::open(empty, records::OpenMode::create, records::opaque_keys()); }
  const auto db = records::TuningDb::open(empty, records::OpenMode::read_only, records::opaque_keys());
  try {
    gather_report_data(db, {});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no measurements to report"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qtune::reports
