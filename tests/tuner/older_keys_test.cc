// A session resumes from a database written before a knob existed
// (tests/fixtures/keys_before_threads_knob: every configuration key lacks `threads`): its
// measurements count as the layer's history, none is measured again, and the layer's best so far
// is known before the first new trial.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "fixtures/older_keys.h"
#include "qtune/records/tuning_db.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/session.h"
#include "tuner/fake_measurer.h"

namespace qtune {
namespace {

TEST(OlderKeys, SessionResumesFromADatabaseWrittenBeforeAKnob) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("qtune_older_keys_session_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto db = records::TuningDb::open(testing::copy_of_older_keys_database(dir), records::OpenMode::existing);
    const std::string target_key = db.targets().at(0).key;
    Workload gemm;
    gemm.op = OpKind::gemm;
    gemm.m = gemm.n = 8;
    gemm.k = 16;
    // What the older qtune measured for the layer, in today's spelling.
    records::MeasurementFilter filter;
    filter.workload_key = gemm.key();
    std::set<std::string> measured_before;
    for (const auto& m : db.measurements(filter)) {
      ASSERT_EQ(m.config_key.find("threads="), std::string::npos) << m.config_key;
      measured_before.insert(m.config_key + testing::kOmittedKnob);
    }
    ASSERT_EQ(measured_before.size(), 5u);

    struct BestBeforeFirstTrial : SessionObserver {
      std::optional<Config> best;
      void on_start(const SessionProgress& progress) override { best = progress.layers->at(0).best_config; }
    } observer;
    testing::FakeMeasurer measurer;
    SessionOptions options;
    options.strategy = StrategyKind::random;
    options.trials_per_layer = measured_before.size() + 3;
    options.confirm_top = 0;
    TuningSession session({Layer{"fc", gemm, 1}}, db, measurer, options, Target::parse_key(target_key));
    EXPECT_EQ(session.run(nullptr, &observer), SessionEnd::completed);

    const LayerStatus& layer = session.layers().at(0);
    EXPECT_EQ(layer.session_trials, 3u);  // only the trials the database did not hold
    EXPECT_EQ(layer.trials, measured_before.size() + 3);
    ASSERT_TRUE(observer.best.has_value());
    EXPECT_TRUE(measured_before.count(observer.best->key())) << observer.best->key();
    for (const auto& [workload_key, config_key] : measurer.calls) {
      EXPECT_FALSE(measured_before.count(config_key)) << "measured again: " << config_key;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qtune
