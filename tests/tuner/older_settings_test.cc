// Measurements written before the cache setting and the disturbance check
// (tests/fixtures/keys_before_threads_knob, made before both) keep loading: their settings read as
// the warm cache they were measured in, and their disturbance as not checked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fixtures/older_keys.h"
#include "qtune/measure/settings.h"
#include "qtune/records/log_format.h"
#include "qtune/records/tuning_db.h"
#include "qtune/tuner/disturbance.h"

namespace qtune {
namespace {

void expect_warm_and_unchecked(const std::vector<records::MeasurementRecord>& records) {
  ASSERT_FALSE(records.empty());
  for (const auto& r : records) {
    ASSERT_TRUE(r.settings.is_object()) << r.config_key;
    EXPECT_FALSE(r.settings.contains("cache")) << "the fixture predates the setting";
    EXPECT_EQ(settings_from_json(r.settings).cache, CacheState::warm) << r.config_key;
    EXPECT_FALSE(recorded_disturbed(r).has_value()) << r.config_key;
  }
}

TEST(OlderSettings, LogMeasurementsReadAsWarmAndUnchecked) {
  const auto log = records::read_log_file(testing::older_keys_fixture("older.jsonl").string(), {});
  EXPECT_EQ(log.invalid_lines, 0u);
  expect_warm_and_unchecked(log.records);
}

TEST(OlderSettings, DatabaseMeasurementsReadAsWarmAndUnchecked) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("qtune_older_settings_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto db = records::TuningDb::open(testing::copy_of_older_keys_database(dir), records::OpenMode::existing, records::opaque_keys());
    expect_warm_and_unchecked(db.measurements({}));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qtune
