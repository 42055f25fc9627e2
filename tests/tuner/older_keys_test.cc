// A session resumes from a database written before a knob existed
// (tests/fixtures/keys_before_threads_knob: every configuration key lacks `threads`;
// keys_before_gemm_algo_knob: GEMM keys lack `algo`): its
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

// Resumes a session on `layer_workload` from the fixture database in `folder`, whose measurements of the
// layer are `expected_before`: none is measured again, and the best so far is known before the
// first new trial.
void expect_session_resumes(const std::string& folder, const Workload& layer_workload, std::size_t expected_before) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("qtune_older_keys_session_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto db = records::TuningDb::open(testing::copy_of_older_keys_database(dir, folder), records::OpenMode::existing, records::opaque_keys());
    const std::string target_key = db.targets().at(0).key;
    // What the older qtune measured for the layer, in today's spelling.
    records::MeasurementFilter filter;
    filter.workload_key = layer_workload.key();
    std::set<std::string> measured_before;
    for (const auto& m : db.measurements(filter)) {
      const std::string today = testing::todays_spelling(layer_workload.op, m.config_key);
      ASSERT_NE(today, m.config_key) << "the fixture's keys are today's";
      measured_before.insert(today);
    }
    ASSERT_EQ(measured_before.size(), expected_before);

    struct BestBeforeFirstTrial : SessionObserver {
      std::optional<Config> best;
      void on_start(const SessionProgress& progress) override { best = progress.layers->at(0).best_config; }
    } observer;
    testing::FakeMeasurer measurer;
    SessionOptions options;
    options.strategy = StrategyKind::random;
    options.trials_per_layer = measured_before.size() + 3;
    options.confirm_top = 0;
    TuningSession session({Layer{"fc", layer_workload, 1}}, db, measurer, options, Target::parse_key(target_key));
    EXPECT_EQ(session.run(nullptr, &observer), SessionEnd::completed);

    const LayerStatus& layer = session.layers().at(0);
    // Only the trials the database did not hold: the 3 drawn, plus the default configuration where
    // neither the database nor the draw had it (the default depends on the kernels compiled in: on
    // aarch64 the fixture's layers now default to a tile the older qtune never measured).
    EXPECT_GE(layer.session_trials, 3u);
    EXPECT_LE(layer.session_trials, 4u);
    EXPECT_EQ(layer.trials, measured_before.size() + 3);
    ASSERT_TRUE(observer.best.has_value());
    EXPECT_TRUE(measured_before.count(observer.best->key())) << observer.best->key();
    for (const auto& [workload_key, config_key] : measurer.calls) {
      EXPECT_FALSE(measured_before.count(config_key)) << "measured again: " << config_key;
    }
  }
  std::filesystem::remove_all(dir);
}

// The fixtures' GEMM layers, as their databases key them.
const std::string kGemm8x8x16 = "gemm:m=8;n=8;k=16;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
const std::string kGemm5x12x40 = "gemm:m=5;n=12;k=40;a=u8;out=s32;azp=1;bzp=0;q=channel;round=tflite;threads=1";

TEST(OlderKeys, SessionResumesFromADatabaseWrittenBeforeTheThreadsKnob) {
  expect_session_resumes(testing::kKeysBeforeThreadsKnob, Workload::parse_key(kGemm8x8x16), 5);
}

TEST(OlderKeys, SessionResumesFromADatabaseWrittenBeforeTheGemmAlgoKnob) {
  expect_session_resumes(testing::kKeysBeforeGemmAlgoKnob, Workload::parse_key(kGemm8x8x16), 5);
  expect_session_resumes(testing::kKeysBeforeGemmAlgoKnob, Workload::parse_key(kGemm5x12x40), 4);
}

}  // namespace
}  // namespace qtune
