// In-process measurement: correctness check, statistics, result fields, error kinds.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "fault_operator.h"
#include "qtune/measure/measure.h"
#include "qtune/search_space/target.h"

namespace qtune {
namespace {

MeasureSettings quick_in_process() {
  MeasureSettings s;
  s.warmup_seconds = 0.001;
  s.min_repetition_seconds = 0.002;
  s.repetitions = 4;
  return s;
}

class InProcessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::register_fault_operator(); }
};

TEST_F(InProcessTest, ResultCarriesStatsKeysTargetAndTimestamp) {
  const MeasureResult r = measure_keys_in_process("fault:n=1024", "mode=ok", quick_in_process());
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.workload_key, "fault:n=1024");
  EXPECT_EQ(r.config_key, "mode=ok");
  EXPECT_EQ(r.target_key, current_target().key());
  EXPECT_EQ(r.settings, quick_in_process());
  // "YYYY-MM-DDTHH:MM:SS.ffffffZ" (std::regex trips GCC 12's -Wmaybe-uninitialized under sanitizers).
  const std::string pattern = "dddd-dd-ddTdd:dd:dd.ddddddZ";
  ASSERT_EQ(r.timestamp.size(), pattern.size()) << r.timestamp;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == 'd') {
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(r.timestamp[i]))) << r.timestamp;
    } else {
      EXPECT_EQ(r.timestamp[i], pattern[i]) << r.timestamp;
    }
  }
  EXPECT_EQ(r.stats.repetitions, 4);
  ASSERT_EQ(r.stats.samples.size(), 4u);
  EXPECT_GT(r.stats.iterations, 1);  // a microsecond kernel is looped to fill 2 ms
  EXPECT_GT(r.stats.min, 0);
  EXPECT_LE(r.stats.min, r.stats.median);
  EXPECT_LE(r.stats.median, r.stats.max);
  EXPECT_LE(r.stats.min, r.stats.mean);
  EXPECT_LE(r.stats.mean, r.stats.max);
  EXPECT_NEAR(r.stats.cv, r.stats.stddev / r.stats.mean, 1e-12);
  EXPECT_NEAR(r.gops, 2.0 * 1024 / 1e9 / r.stats.median, 1e-9 * r.gops);
  EXPECT_GT(r.wall_seconds, 0);
}

TEST_F(InProcessTest, WrongAnswerIsCaughtBeforeTiming) {
  const MeasureResult r = measure_keys_in_process("fault:n=64", "mode=wrong", quick_in_process());
  EXPECT_EQ(r.error, ErrorKind::wrong_answer);
  EXPECT_EQ(r.error_message,
            "first mismatch at index 32 (row 2, column 0): got " + std::to_string((32 * 7919 % 1000 - 500) * 3 + 2) +
                ", expected " + std::to_string((32 * 7919 % 1000 - 500) * 3 + 1) + "; 1 of 64 s32 elements differ");
  EXPECT_EQ(r.stats.repetitions, 0);
  EXPECT_EQ(r.gops, 0);
}

TEST_F(InProcessTest, ExceptionsAndBadKeysBecomeErrorKinds) {
  EXPECT_EQ(measure_keys_in_process("fault:n=64", "mode=throw", quick_in_process()).error, ErrorKind::runtime_error);
  EXPECT_EQ(measure_keys_in_process("fault:n=64", "mode=?", quick_in_process()).error, ErrorKind::invalid_config);
  EXPECT_EQ(measure_keys_in_process("conv3d:x=1", "a=1", quick_in_process()).error, ErrorKind::invalid_workload);
  const MeasureResult r = measure_keys_in_process(
      "gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1",
      "isa=scalar;tile=4x4;kc=512;mc=0;nc=0;pack_a=1;fuse=1;threads=1", quick_in_process());
  EXPECT_EQ(r.error, ErrorKind::invalid_config);
  EXPECT_NE(r.error_message.find("kc=512"), std::string::npos) << r.error_message;
  MeasureSettings bad = quick_in_process();
  bad.repetitions = 0;
  const MeasureResult invalid = measure_keys_in_process("fault:n=64", "mode=ok", bad);
  EXPECT_EQ(invalid.error, ErrorKind::runtime_error);
  EXPECT_NE(invalid.error_message.find("'repetitions'"), std::string::npos);
}

TEST(InProcessTypedObjects, OutsideTheSpaceAreErrorKindsAndTheResultStaysJson) {
  Workload gemm;
  gemm.m = gemm.n = gemm.k = 8;
  const Config outside({{"algo", "qtune"}, {"isa", "scalar"}, {"tile", "4x4"}, {"kc", "512"}, {"mc", "0"},
                        {"nc", "0"}, {"pack_a", "1"}, {"fuse", "1"}, {"threads", "1"}});
  const MeasureResult r = measure_in_process(gemm, outside, quick_in_process());
  EXPECT_EQ(r.error, ErrorKind::invalid_config);
  EXPECT_NE(r.error_message.find("kc=512"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.workload_key, gemm.key());
  EXPECT_EQ(r.config_key, outside.key());
  EXPECT_EQ(r.stats.repetitions, 0);

  Workload empty = gemm;
  empty.m = 0;
  const MeasureResult no_workload = measure_in_process(empty, outside, quick_in_process());
  EXPECT_EQ(no_workload.error, ErrorKind::invalid_workload);
  EXPECT_NE(no_workload.error_message.find("'m'"), std::string::npos) << no_workload.error_message;

  // A Config built in code is not text checked on arrival: what it holds is escaped instead.
  const Config not_text_config({{"algo", "qtune"}, {"isa", "\xff"}});
  const MeasureResult not_text = measure_in_process(gemm, not_text_config, quick_in_process());
  EXPECT_EQ(not_text.error, ErrorKind::invalid_config);
  EXPECT_EQ(not_text.config_key, "algo=qtune;isa=\\xff");
  EXPECT_NO_THROW(to_json(not_text).dump());
}

TEST_F(InProcessTest, FlushAndPinningStillMeasure) {
  MeasureSettings s = quick_in_process();
  s.flush_cache = true;
  s.pin_cpu = 0;
  s.repetitions = 2;
  const MeasureResult r = measure_keys_in_process("fault:n=256", "mode=ok", s);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.stats.repetitions, 2);
  s.pin_cpu = 100000;
  EXPECT_EQ(measure_keys_in_process("fault:n=256", "mode=ok", s).error, ErrorKind::runtime_error);
}

TEST(MeasureResultJson, RoundTrips) {
  MeasureResult r;
  r.workload_key = "w";
  r.config_key = "c";
  r.target_key = "t";
  r.stats = MeasureStats::from_samples({3e-3, 1e-3, 2e-3}, 17);
  r.gops = 12.5;
  r.error = ErrorKind::timeout;
  r.error_message = "m";
  r.settings = MeasureSettings::stable();
  r.timestamp = utc_timestamp();
  r.worker_pid = 42;
  r.wall_seconds = 0.25;
  const MeasureResult back = result_from_json(to_json(r));
  EXPECT_EQ(to_json(back), to_json(r));
  EXPECT_EQ(back.stats.median, 2e-3);
  EXPECT_EQ(back.settings, MeasureSettings::stable());
  nlohmann::json broken = to_json(r);
  broken["error"] = "meltdown";
  EXPECT_THROW(result_from_json(broken), std::invalid_argument);
  broken = to_json(r);
  broken.erase("stats");
  EXPECT_THROW(result_from_json(broken), std::invalid_argument);
}

TEST(MeasureStats, MedianMeanAndSampleDeviation) {
  const MeasureStats s = MeasureStats::from_samples({4, 1, 3, 2}, 5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_EQ(s.samples, (std::vector<double>{4, 1, 3, 2}));  // in measurement order
}

TEST(MeasureSettings, DefaultsAreValidAndJsonRoundTrips) {
  for (const MeasureSettings& s : {MeasureSettings::tuning(), MeasureSettings::stable()}) {
    EXPECT_NO_THROW(s.validate());
    EXPECT_EQ(settings_from_json(to_json(s)), s);
  }
  EXPECT_LT(MeasureSettings::tuning().repetitions * MeasureSettings::tuning().min_repetition_seconds,
            MeasureSettings::stable().repetitions * MeasureSettings::stable().min_repetition_seconds);
  nlohmann::json j = to_json(MeasureSettings::tuning());
  j["repetitions"] = "many";
  try {
    settings_from_json(j);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'repetitions'"), std::string::npos);
  }
}

TEST(CompareOutputs, NamesFirstMismatchAndCount) {
  const std::uint8_t got[6] = {1, 2, 3, 4, 5, 6}, expected[6] = {1, 2, 3, 4, 0, 0};
  EXPECT_EQ(compare_outputs(got, got, 6, DType::u8, 3), "");
  EXPECT_EQ(compare_outputs(got, expected, 6, DType::u8, 3),
            "first mismatch at index 4 (row 1, column 1): got 5, expected 0; 2 of 6 u8 elements differ");
  const std::int8_t s_got[2] = {-1, 0}, s_expected[2] = {-2, 0};
  EXPECT_EQ(compare_outputs(s_got, s_expected, 2, DType::s8, 2),
            "first mismatch at index 0 (row 0, column 0): got -1, expected -2; 1 of 2 s8 elements differ");
}

}  // namespace
}  // namespace qtune
