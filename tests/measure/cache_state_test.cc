// The cache state of the measurement protocol: its spelling, the setting's default for results of a
// qtune before it existed, the cold measurement's per-call timing, and the recorded disturbance.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fault_operator.h"
#include "qtune/measure/cache_state.h"
#include "qtune/measure/measure.h"

namespace qtune {
namespace {

TEST(CacheState, SpelledWarmOrCold) {
  for (CacheState s : {CacheState::warm, CacheState::cold}) EXPECT_EQ(parse_cache_state(to_string(s)), s);
  EXPECT_FALSE(parse_cache_state("hot").has_value());
  EXPECT_FALSE(parse_cache_state("").has_value());
}

TEST(CacheState, ColdRepetitionsAreFewCallsWarmOnesMany) {
  EXPECT_EQ(calls_per_repetition(1e-6, 0.01, CacheState::warm), 1000);
  EXPECT_EQ(calls_per_repetition(1e-6, 0.01, CacheState::cold), 16);
  EXPECT_EQ(calls_per_repetition(4e-3, 0.01, CacheState::cold), 2);
  EXPECT_EQ(calls_per_repetition(1.0, 0.01, CacheState::warm), 1);
}

TEST(CacheState, TimesExactlyOneCall) {
  for (CacheState s : {CacheState::warm, CacheState::cold}) {
    int calls = 0;
    EXPECT_GE(time_one_call([&] { ++calls; }, s), 0.0);
    EXPECT_EQ(calls, 1);
  }
}

TEST(CacheSetting, OlderSettingsWithoutItReadAsWarm) {
  // The settings object of a measurement by a qtune before the setting (tests/fixtures logs).
  const auto older = nlohmann::json::parse(
      R"({"check_correctness":true,"flush_cache":false,"min_repetition_seconds":0.01,"pin_cpu":-1,)"
      R"("repetitions":3,"seed":1,"timeout_seconds":30.0,"warmup_seconds":0.01})");
  EXPECT_EQ(settings_from_json(older).cache, CacheState::warm);
  MeasureSettings cold = MeasureSettings::tuning();
  cold.cache = CacheState::cold;
  EXPECT_EQ(to_json(cold).at("cache"), "cold");
  EXPECT_EQ(settings_from_json(to_json(cold)), cold);
  nlohmann::json bad = to_json(cold);
  bad["cache"] = "lukewarm";
  try {
    settings_from_json(bad);
    FAIL() << "accepted cache \"lukewarm\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'cache'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lukewarm"), std::string::npos) << e.what();
  }
}

class ColdMeasurement : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::register_fault_operator(); }
};

TEST_F(ColdMeasurement, EachRepetitionIsABoundedNumberOfCallsAndTheStateIsRecorded) {
  MeasureSettings s;
  s.warmup_seconds = 0.001;
  s.min_repetition_seconds = 0.002;
  s.repetitions = 3;
  s.cache = CacheState::cold;
  const MeasureResult r = measure_keys_in_process("fault:n=256", "mode=ok", s);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.stats.repetitions, 3);
  EXPECT_GE(r.stats.iterations, 1);
  EXPECT_LE(r.stats.iterations, 16);
  EXPECT_GT(r.stats.median, 0);
  EXPECT_EQ(result_from_json(to_json(r)).settings.cache, CacheState::cold);
}

TEST(WaitingShare, TravelsInTheResultAndIsAbsentInOlderOnes) {
  MeasureResult r;
  r.waiting_share = 0.25;
  EXPECT_EQ(result_from_json(to_json(r)).waiting_share, 0.25);
  nlohmann::json older = to_json(r);
  older.erase("waiting_share");
  EXPECT_FALSE(result_from_json(older).waiting_share.has_value());
  r.waiting_share.reset();
  EXPECT_FALSE(result_from_json(to_json(r)).waiting_share.has_value());
}

}  // namespace
}  // namespace qtune
