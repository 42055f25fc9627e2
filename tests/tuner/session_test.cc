// Tuning sessions against a fake measurer and a temporary database: the default first, resume
// without re-measuring, remeasure, early stop, merged layers, shared budgets, clean stops.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "qtune/records/tuning_db.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/progress_printer.h"
#include "qtune/tuner/session.h"
#include "qtune/tuner/session_summary.h"
#include "tuner/fake_measurer.h"

namespace qtune {
namespace {

Workload gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = m;
  w.n = n;
  w.k = k;
  return w;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("qtune_session_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  records::TuningDb open_db() { return records::TuningDb::open((dir_ / "tuning.db").string(), records::OpenMode::create, records::opaque_keys()); }

  SessionOptions options(std::size_t trials, StrategyKind strategy = StrategyKind::random) {
    SessionOptions o;
    o.strategy = strategy;
    o.trials_per_layer = trials;
    o.seed = 5;
    o.round_size = 4;
    o.confirm_top = 0;  // these tests count trials; ConfirmationTest below covers confirmation
    return o;
  }

  std::filesystem::path dir_;
  const Layer layer_{"fc", gemm(64, 96, 128), 1};
};

TEST_F(SessionTest, MeasuresTheDefaultFirstAndRecordsEveryTrial) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  TuningSession session({layer_}, db, measurer, options(6));
  EXPECT_EQ(session.run(), SessionEnd::completed);
  ASSERT_EQ(measurer.calls.size(), 6u);
  EXPECT_EQ(measurer.calls[0].second, default_config(layer_.workload, cpu_features()).key());
  const auto& status = session.layers().at(0);
  EXPECT_EQ(status.trials, 6u);
  EXPECT_TRUE(status.default_gops.has_value() || status.failures > 0);
  EXPECT_EQ(db.measured_configs(layer_.workload.key(), current_target().key()).size(), 6u);
  ASSERT_TRUE(session.session_id().has_value());
  EXPECT_EQ(db.session(*session.session_id())->status, records::SessionStatus::completed);
}

TEST_F(SessionTest, ResumeNeverMeasuresAConfigurationTwice) {
  auto db = open_db();
  testing::FakeMeasurer first, second;
  for (auto strategy : {StrategyKind::random, StrategyKind::model}) {
    TuningSession(std::vector<Layer>{layer_}, db, first, options(strategy == StrategyKind::random ? 8 : 12, strategy)).run();
  }
  ASSERT_EQ(first.calls.size(), 12u);
  // Same command again with a higher target: only the difference is measured, all new.
  TuningSession again({layer_}, db, second, options(20, StrategyKind::model));
  again.run();
  EXPECT_EQ(second.calls.size(), 8u);
  std::set<std::string> keys;
  for (const auto& c : first.calls) EXPECT_TRUE(keys.insert(c.second).second) << c.second;
  for (const auto& c : second.calls) EXPECT_TRUE(keys.insert(c.second).second) << "measured again: " << c.second;
  EXPECT_EQ(again.layers()[0].trials, 20u);
  // And once the target is met, running it again measures nothing.
  testing::FakeMeasurer third;
  TuningSession done({layer_}, db, third, options(20));
  EXPECT_EQ(done.run(), SessionEnd::completed);
  EXPECT_TRUE(third.calls.empty());
  EXPECT_EQ(done.layers()[0].finished, "budget");
}

TEST_F(SessionTest, RemeasureStartsOverFromTheDefault) {
  auto db = open_db();
  testing::FakeMeasurer first, second;
  TuningSession(std::vector<Layer>{layer_}, db, first, options(4)).run();
  auto o = options(4);
  o.remeasure = true;
  TuningSession(std::vector<Layer>{layer_}, db, second, o).run();
  ASSERT_EQ(second.calls.size(), 4u);
  EXPECT_EQ(second.calls[0].second, first.calls[0].second);  // the default, again
}

TEST_F(SessionTest, EarlyStopEndsALayerThatStopsImproving) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  const std::string default_key = default_config(layer_.workload, cpu_features()).key();
  measurer.gops = [&](const std::string&, const std::string& config) -> std::optional<double> {
    return config == default_key ? 1000.0 : 10.0;  // nothing beats the default
  };
  auto o = options(50);
  o.early_stop = 5;
  TuningSession session({layer_}, db, measurer, o);
  EXPECT_EQ(session.run(), SessionEnd::completed);
  EXPECT_EQ(measurer.calls.size(), 6u);  // the default, then 5 without improvement
  EXPECT_EQ(session.layers()[0].finished, "early stop");
  EXPECT_DOUBLE_EQ(*session.layers()[0].speedup(), 1.0);
}

TEST_F(SessionTest, IdenticalLayersAreTunedOnceWithTheirCountsAdded) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  Layer again = layer_;
  again.name = "fc_again";
  again.count = 2;
  TuningSession session({layer_, again}, db, measurer, options(3));
  session.run();
  ASSERT_EQ(session.layers().size(), 1u);
  EXPECT_EQ(session.layers()[0].count, 3);
  EXPECT_EQ(session.layers()[0].name, "fc");
  EXPECT_EQ(measurer.calls.size(), 3u);
}

TEST_F(SessionTest, ASharedBudgetFavoursTheLayerThatDominatesTheNetwork) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  // Same throughput everywhere, so time is proportional to work: the big layer, 10 times over,
  // is ~99% of the network.
  const Layer big{"big", gemm(256, 256, 256), 10}, small{"small", gemm(16, 32, 32), 1};
  SessionOptions o = options(0);
  o.trials_per_layer.reset();
  o.total_trials = 48;
  TuningSession session({big, small}, db, measurer, o);
  EXPECT_EQ(session.run(), SessionEnd::total_budget);
  const auto& layers = session.layers();
  EXPECT_EQ(layers[0].trials + layers[1].trials, 48u);
  EXPECT_GE(layers[1].trials, 1u);  // the default is always measured
  EXPECT_GT(layers[0].trials, 3 * layers[1].trials) << layers[0].trials << " vs " << layers[1].trials;
}

TEST_F(SessionTest, AStopRequestEndsAfterTheTrialInFlight) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  std::atomic<bool> stop{false};
  measurer.after_call = [&](std::size_t calls) {
    if (calls == 3) stop = true;  // as the SIGINT handler would, while the 3rd trial runs
  };
  std::ostringstream log;
  ProgressPrinter printer(log, ProgressStyle::lines);
  TuningSession session({layer_}, db, measurer, options(30));
  EXPECT_EQ(session.run(&stop, &printer), SessionEnd::interrupted);
  EXPECT_EQ(measurer.calls.size(), 3u);
  EXPECT_EQ(db.measured_configs(layer_.workload.key(), current_target().key()).size(), 3u);  // committed
  EXPECT_EQ(db.session(*session.session_id())->status, records::SessionStatus::interrupted);
  EXPECT_NE(log.str().find("[3/30 "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("session interrupted after 3 new trials"), std::string::npos) << log.str();
}

TEST_F(SessionTest, FailuresAreRecordedAndNeverRetried) {
  auto db = open_db();
  testing::FakeMeasurer first, second;
  first.gops = [](const std::string&, const std::string& config) -> std::optional<double> {
    if (config.find("fuse=0") != std::string::npos) return std::nullopt;
    return 50.0;
  };
  TuningSession(std::vector<Layer>{layer_}, db, first, options(16, StrategyKind::grid)).run();
  records::MeasurementFilter failed;
  failed.workload_key = layer_.workload.key();
  std::size_t failures = 0;
  std::set<std::string> failed_keys;
  for (const auto& r : db.measurements(failed)) {
    if (!r.correct()) {
      ++failures;
      failed_keys.insert(r.config_key);
      EXPECT_EQ(r.error_kind, "wrong_answer");
    }
  }
  TuningSession(std::vector<Layer>{layer_}, db, second, options(32, StrategyKind::grid)).run();
  for (const auto& c : second.calls) EXPECT_EQ(failed_keys.count(c.second), 0u) << c.second;
  EXPECT_GT(failures, 0u);
}

TEST_F(SessionTest, ConfirmationMeasuresTheLeadersAgainAndOnlyOnce) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  auto o = options(6);
  o.confirm_top = 2;
  o.confirm_samples = 3;
  TuningSession session({layer_}, db, measurer, o);
  EXPECT_EQ(session.run(), SessionEnd::completed);
  std::map<std::string, int> times;
  for (const auto& c : measurer.calls) ++times[c.second];
  EXPECT_EQ(times.size(), 6u) << "confirmation measures configurations already tried";
  const auto& layer = session.layers()[0];
  EXPECT_EQ(layer.trials, 6u) << "confirming measurements are not trials";
  EXPECT_EQ(times[layer.best_config->key()], 3) << "the best has its three measurements";
  EXPECT_EQ(times[layer.default_config.key()], 3) << "so has the default (the speedup's base)";
  int confirmed = 0;
  for (const auto& [key, n] : times) confirmed += n == 3 ? 1 : 0;
  EXPECT_GE(confirmed, 2);
  EXPECT_LE(confirmed, 3);  // the two leaders and the default (unless it leads)

  // Running the same command again finds everything confirmed: nothing is measured.
  testing::FakeMeasurer again;
  TuningSession(std::vector<Layer>{layer_}, db, again, o).run();
  EXPECT_TRUE(again.calls.empty());
}

TEST_F(SessionTest, ALuckyMeasurementDoesNotPickTheBest) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  // Every configuration runs at 100 GOP/s except one that runs at 50 but whose first measurement
  // came at a quiet moment (1000): without confirmation it would be the best.
  std::map<std::string, int> seen;
  std::string lucky;
  measurer.gops = [&](const std::string&, const std::string& config) -> std::optional<double> {
    const int n = seen[config]++;
    if (lucky.empty() && n == 0 && seen.size() == 3) lucky = config;
    if (config == lucky) return n == 0 ? 1000.0 : 50.0;
    return 100.0;
  };
  auto o = options(6);
  o.confirm_top = 2;
  TuningSession session({layer_}, db, measurer, o);
  session.run();
  ASSERT_FALSE(lucky.empty());
  ASSERT_TRUE(session.layers()[0].best_config.has_value());
  EXPECT_NE(session.layers()[0].best_config->key(), lucky);
  EXPECT_DOUBLE_EQ(*session.layers()[0].best_gops, 100.0);
  EXPECT_NE(db.best(layer_.workload.key(), current_target().key())->measurement.config_key, lucky)
      << "the database picks by the median of a configuration's measurements too";
}

TEST_F(SessionTest, ALaterLeaderIsConfirmedInTurnWithTheConfirmedOnes) {
  auto db = open_db();
  testing::FakeMeasurer measurer;
  // The default (the first configuration measured) runs at 100 GOP/s, the second one tried at 90,
  // the others at 50; the first two confirming measurements fall in a moment when the machine runs
  // everything at 0.7 times its speed. They are the default's: its median drops to 70, the second
  // configuration leads, and measured alone in the quiet moment after it would be picked.
  std::map<std::string, double> speed;
  std::size_t calls = 0;
  const std::size_t trials = 6;
  measurer.gops = [&](const std::string&, const std::string& config) -> std::optional<double> {
    if (!speed.count(config)) speed[config] = speed.empty() ? 100.0 : speed.size() == 1 ? 90.0 : 50.0;
    ++calls;
    const bool slow_moment = calls == trials + 1 || calls == trials + 2;
    return speed[config] * (slow_moment ? 0.7 : 1.0);
  };
  auto o = options(trials);
  o.confirm_top = 1;
  o.confirm_samples = 3;
  TuningSession session({layer_}, db, measurer, o);
  EXPECT_EQ(session.run(), SessionEnd::completed);
  const Config& fastest = session.layers()[0].default_config;
  ASSERT_TRUE(session.layers()[0].best_config.has_value());
  EXPECT_EQ(session.layers()[0].best_config->key(), fastest.key());
  EXPECT_EQ(db.best(layer_.workload.key(), current_target().key())->measurement.config_key, fastest.key())
      << "the default was measured again in the quiet moment, in turn with the new leader";
  std::map<std::string, int> times;
  for (const auto& c : measurer.calls) ++times[c.second];
  EXPECT_EQ(times[fastest.key()], 4) << "three, then once beside the new leader, after which it leads again";
}

TEST(SessionSummary, EstimatesTheNetworkCountWeighted) {
  LayerStatus a;
  a.name = "a";
  a.workload = gemm(100, 100, 100);  // 0.002 GOP
  a.count = 3;
  a.default_gops = 1.0;
  a.best_gops = 2.0;
  a.best_config = Config(std::vector<std::pair<std::string, std::string>>{{"x", "1"}});
  LayerStatus b = a;
  b.name = "b";
  b.count = 1;
  b.best_gops = 1.0;
  const auto e = estimate_network({a, b});
  ASSERT_TRUE(e.before_seconds && e.after_seconds);
  EXPECT_NEAR(*e.before_seconds, 4 * 0.002, 1e-12);
  EXPECT_NEAR(*e.after_seconds, 3 * 0.001 + 0.002, 1e-12);
  std::ostringstream out;
  print_summary(out, {a, b}, MeasureSettings::tuning(), DisturbancePolicy{});
  EXPECT_NE(out.str().find("2.00x"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("cache warm, as `qtune run --cache warm` measures"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("no measurement was disturbed"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("8.000 ms with default configurations -> 5.000 ms tuned (1.60x)"), std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("machine shared"), std::string::npos) << out.str();
  // A neighbour busy on another core: no run-queue waits, but the summary names it; a tenth of a
  // core (background daemons) is not worth a line.
  std::ostringstream shared, light;
  print_summary(shared, {a, b}, MeasureSettings::tuning(), DisturbancePolicy{}, 0.97);
  print_summary(light, {a, b}, MeasureSettings::tuning(), DisturbancePolicy{}, 0.1);
  EXPECT_NE(shared.str().find("machine shared: other processes kept 0.97 core(s) busy"), std::string::npos)
      << shared.str();
  EXPECT_NE(shared.str().find("no measurement was disturbed"), std::string::npos) << shared.str();
  EXPECT_EQ(light.str().find("machine shared"), std::string::npos) << light.str();
}

}  // namespace
}  // namespace qtune
