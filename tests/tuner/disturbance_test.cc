// Disturbance awareness of the tuner, driven through the measurer seam: a fake measurer reports
// how long its threads waited for a CPU, so what counts as disturbed, how often a measurement is
// taken again and what the record and the summary say are checked without timing anything.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "qtune/records/tuning_db.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/disturbance.h"
#include "qtune/tuner/measurement_record.h"
#include "qtune/tuner/session.h"
#include "qtune/tuner/session_summary.h"
#include "qtune/tuner/trial_history.h"
#include "tuner/fake_measurer.h"

namespace qtune {
namespace {

// The fake measurer (every configuration correct) whose result of call n (1-based) waited share(n)
// of its time.
class WaitingMeasurer final : public Measurer {
 public:
  std::function<double(std::size_t call)> share;
  testing::FakeMeasurer inner;
  WaitingMeasurer() {
    inner.gops = [](const std::string&, const std::string& config_key) -> std::optional<double> {
      return 10.0 + static_cast<double>(Config({{"k", config_key}}).hash() % 1000) / 10.0;
    };
  }
  MeasureResult measure(const Workload& workload, const Config& config, const MeasureSettings& settings) override {
    MeasureResult r = inner.measure(workload, config, settings);
    r.waiting_share = share(inner.calls.size());
    return r;
  }
};

Workload small_gemm() {
  Workload w;
  w.op = OpKind::gemm;
  w.m = w.n = 8;
  w.k = 16;
  return w;
}

Config some_config() { return default_config(small_gemm(), cpu_features()); }

TEST(Disturbance, ThresholdOnTheWaitingShare) {
  const DisturbancePolicy policy;  // 0.05
  MeasureResult r;
  r.stats = MeasureStats::from_samples({1e-3, 1e-3, 1e-3}, 1);
  EXPECT_FALSE(is_disturbed(r, policy));  // not checked: nothing known
  r.waiting_share = 0.01;
  EXPECT_FALSE(is_disturbed(r, policy));
  r.waiting_share = 0.5;
  EXPECT_TRUE(is_disturbed(r, policy));
  r.error = ErrorKind::wrong_answer;
  EXPECT_FALSE(is_disturbed(r, policy));  // an error is retried by nobody: it is the news
}

TEST(Disturbance, DisturbedMeasurementIsTakenAgainUntilQuiet) {
  WaitingMeasurer m;
  m.share = [](std::size_t call) { return call < 2 ? 0.5 : 0.0; };  // calls 1 disturbed, 2 quiet
  const auto measured = measure_undisturbed(m, small_gemm(), some_config(), MeasureSettings::tuning(), {});
  EXPECT_EQ(m.inner.calls.size(), 2u);
  EXPECT_EQ(measured.disturbed_attempts, 1);
  EXPECT_FALSE(measured.disturbed);
  EXPECT_EQ(measured.result.waiting_share, 0.0);
}

TEST(Disturbance, RetriesAreBoundedAndTheLeastDisturbedAttemptIsKept) {
  WaitingMeasurer m;
  m.share = [](std::size_t call) { return call == 3 ? 0.3 : 0.7; };
  DisturbancePolicy policy;
  policy.retries = 3;
  const auto measured = measure_undisturbed(m, small_gemm(), some_config(), MeasureSettings::tuning(), policy);
  EXPECT_EQ(m.inner.calls.size(), 4u);  // the first and three retries
  EXPECT_EQ(measured.disturbed_attempts, 3);
  EXPECT_TRUE(measured.disturbed);
  EXPECT_TRUE(measured.result.ok());
  EXPECT_EQ(measured.result.waiting_share, 0.3);
}

TEST(Disturbance, AStopRequestEndsTheRetries) {
  WaitingMeasurer m;
  m.share = [](std::size_t) { return 0.7; };
  const auto measured =
      measure_undisturbed(m, small_gemm(), some_config(), MeasureSettings::tuning(), {}, [] { return true; });
  EXPECT_EQ(m.inner.calls.size(), 1u);
  EXPECT_TRUE(measured.disturbed);
}

TEST(Disturbance, RecordedInTheMeasurementsSettingsAndReadBack) {
  WaitingMeasurer m;
  m.share = [](std::size_t call) { return call == 1 ? 0.4 : 0.02; };
  const auto measured = measure_undisturbed(m, small_gemm(), some_config(), MeasureSettings::tuning(), {});
  records::MeasurementRecord record = to_measurement_record(measured.result, std::nullopt, "target");
  EXPECT_FALSE(recorded_disturbed(record).has_value());  // as a qtune without the check wrote it
  record_disturbance(record, measured);
  EXPECT_EQ(record.settings.at("disturbed_attempts"), 1);
  EXPECT_DOUBLE_EQ(record.settings.at("waiting_share").get<double>(), 0.02);
  ASSERT_TRUE(recorded_disturbed(record).has_value());
  EXPECT_FALSE(*recorded_disturbed(record));
  // The settings stay readable as settings: the disturbance is beside them.
  EXPECT_EQ(settings_from_json(record.settings), MeasureSettings::tuning());
}

TEST(Disturbance, TrialHistoryPrefersUndisturbedSamples) {
  TrialHistory history;
  const Config c = some_config();
  history.add(c, 100.0, true);
  EXPECT_EQ(history.observations().at(0).gops, 100.0);  // only disturbed samples: they count
  history.add(c, 300.0, false);
  history.add(c, 90.0, true);
  EXPECT_EQ(history.observations().at(0).gops, 300.0);  // the undisturbed one decides
  EXPECT_EQ(history.samples(c), 3u);                    // every sample was measured
}

TEST(Disturbance, NoRetriesWhileTheMachineStaysBusy) {
  DisturbancePolicy policy;
  policy.busy_streak = 3;
  EXPECT_EQ(policy.after_streak(2).retries, 2);
  EXPECT_EQ(policy.after_streak(3).retries, 0);
  EXPECT_EQ(policy.after_streak(3).max_waiting_share, policy.max_waiting_share);
}

class DisturbedSession : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("qtune_disturbed_session_" + std::to_string(::getpid()));
  void SetUp() override {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // A random-strategy session of `trials` trials of the small GEMM, without confirmation, into db.
  LayerStatus tune(records::TuningDb& db, WaitingMeasurer& m, std::size_t trials, SessionOptions& options) const {
    options.strategy = StrategyKind::random;
    options.trials_per_layer = trials;
    options.confirm_top = 0;
    TuningSession session({Layer{"fc", small_gemm(), 1}}, db, m, options);
    session.run();
    return session.layers().at(0);
  }
};

TEST_F(DisturbedSession, CountsStoresAndReportsTheDisturbance) {
  auto db = records::TuningDb::open((dir / "t.db").string(), records::OpenMode::create, records::opaque_keys());
  WaitingMeasurer m;
  // Calls 3 and 4 (a measurement and its first retry) disturbed, its second retry (call 5) quiet;
  // calls 10 to 12 (a measurement and both its retries) disturbed: kept disturbed.
  m.share = [](std::size_t call) { return call == 3 || call == 4 || (call >= 10 && call <= 12) ? 0.6 : 0.0; };
  SessionOptions options;
  const LayerStatus layer = tune(db, m, 8, options);
  EXPECT_EQ(layer.disturbed, 2u);
  EXPECT_EQ(layer.still_disturbed, 1u);
  EXPECT_EQ(m.inner.calls.size(), layer.session_trials + 2 + 2);  // the retries come on top
  std::size_t kept_disturbed = 0, checked = 0;
  for (const auto& record : db.measurements({})) {
    if (const auto d = recorded_disturbed(record)) {
      ++checked;
      kept_disturbed += *d;
    }
  }
  EXPECT_EQ(checked, layer.session_trials);  // one record per measurement, retries not stored twice
  EXPECT_EQ(kept_disturbed, 1u);
  std::ostringstream out;
  print_summary(out, {layer}, options.measure, options.disturbance);
  EXPECT_NE(out.str().find("machine disturbed: 2 measurement(s)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 stayed disturbed (up to 2 retries"), std::string::npos) << out.str();
}

TEST_F(DisturbedSession, AMachineBusyThroughoutStopsTheRetries) {
  auto db = records::TuningDb::open((dir / "busy.db").string(), records::OpenMode::create, records::opaque_keys());
  WaitingMeasurer m;
  m.share = [](std::size_t) { return 0.6; };
  SessionOptions options;
  const LayerStatus layer = tune(db, m, 12, options);
  // 12 drawn trials, plus the default configuration where the draw missed it (as on aarch64, whose
  // space differs): every one of them disturbed.
  ASSERT_GE(layer.session_trials, 12u);
  EXPECT_EQ(layer.still_disturbed, layer.session_trials);
  // The first busy_streak (8) measurements with both retries, the others once.
  EXPECT_EQ(m.inner.calls.size(), 8u * 3 + (layer.session_trials - 8));
}

}  // namespace
}  // namespace qtune
