// A log read as TuningRecords answers the queries of the runtime and the tuner as the database it
// was exported from does, and open_tuning_records tells the two kinds of file apart by content.
#include "qtune/records/tuning_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <tuple>

#include "qtune/records/log_format.h"
#include "qtune/records/open_tuning_records.h"
#include "qtune/records/transfer.h"
#include "qtune/records/tuning_db.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::config_key;
using testing::correct;
using testing::failed;
using testing::kTarget;
using testing::kTarget2;
using testing::kWorkload;
using testing::kWorkload2;

// What a log keeps of a measurement (not the database's id, session or source).
auto content(const MeasurementRecord& r) {
  return std::make_tuple(r.workload_key, r.target_key, r.config_key, r.stats, r.error_kind, r.timestamp);
}

class TuningLogTest : public ::testing::Test {
 protected:
  TuningLogTest() {
    auto db = TuningDb::open(db_path, OpenMode::create, testing::test_validators());
    const auto session = db.begin_session({"qtune tune", "random", 7, kTarget, "0.1.0"});
    for (int i = 0; i < 4; ++i) {
      for (const char* target : {kTarget, kTarget2}) {
        auto r = correct(kWorkload, target, config_key(8, 64 * (i + 1)), 1000.0 + 100 * ((i * 3) % 4));
        r.session_id = session;
        db.add_measurement(r);
        db.add_measurement(correct(kWorkload2, target, config_key(4, 64 * (i + 1)), 2000.0 - 10 * i));
      }
    }
    db.add_measurement(failed(kWorkload, kTarget, config_key(2, 64), "crash"));
    db.end_session(session, SessionStatus::completed);
    std::ofstream out(log_path);
    export_log(db, out, ExportSelection::all, std::nullopt);
  }

  testing::ScratchDir dir;
  const std::string db_path = dir.file("tuning.db");
  const std::string log_path = dir.file("all.jsonl");
};

TEST_F(TuningLogTest, AnswersQueriesAsItsDatabaseDoes) {
  const auto db = TuningDb::open(db_path, OpenMode::read_only, testing::test_validators());
  const auto log = TuningLog::open(log_path, testing::test_validators());
  std::vector<MeasurementFilter> filters(8);
  filters[1].workload_key = kWorkload;
  filters[2].target_key = kTarget2;
  filters[3].workload_key = kWorkload2;
  filters[3].target_key = kTarget;
  filters[3].config_key = config_key(4, 128);
  filters[4].op = "gemm";
  filters[5].op = "conv2d";
  filters[6].shape_contains = "m=49;";
  filters[7].correct_only = true;
  for (std::size_t f = 0; f < filters.size(); ++f) {
    SCOPED_TRACE(f);
    const auto from_db = db.measurements(filters[f]), from_log = log.measurements(filters[f]);
    ASSERT_EQ(from_log.size(), from_db.size());
    for (std::size_t i = 0; i < from_db.size(); ++i) EXPECT_EQ(content(from_log[i]), content(from_db[i]));
    const auto best_db = db.all_best(filters[f]), best_log = log.all_best(filters[f]);
    ASSERT_EQ(best_log.size(), best_db.size());
    for (std::size_t i = 0; i < best_db.size(); ++i) {
      EXPECT_EQ(content(best_log[i].measurement), content(best_db[i].measurement));
      EXPECT_EQ(best_log[i].trials, best_db[i].trials);
      EXPECT_EQ(best_log[i].failures, best_db[i].failures);
    }
  }
  EXPECT_EQ(log.best(kWorkload, kTarget)->measurement.config_key, db.best(kWorkload, kTarget)->measurement.config_key);
  EXPECT_FALSE(log.best(kWorkload, "arch=riscv64"));
}

TEST_F(TuningLogTest, HasNoSessions) {
  const auto log = TuningLog::open(log_path, testing::test_validators());
  MeasurementFilter of_session;
  of_session.session_id = 1;
  EXPECT_TRUE(log.measurements(of_session).empty());
  MeasurementFilter imported;
  imported.source = MeasurementSource::imported;
  EXPECT_EQ(log.measurements(imported).size(), log.measurements().size());
}

TEST_F(TuningLogTest, InvalidLineIsRefusedNamingIt) {
  std::ofstream(log_path, std::ios::app) << "{\"format\":\"qtune-log/1\"}\n";
  try {
    TuningLog::open(log_path, testing::test_validators());
    FAIL() << "expected LogError";
  } catch (const LogError& e) {
    EXPECT_NE(std::string(e.what()).find(log_path + ":18: field 'workload': missing"), std::string::npos) << e.what();
  }
}

TEST_F(TuningLogTest, OpenTuningRecordsTellsTheKindsApartByContent) {
  const auto database = open_tuning_records(db_path, testing::test_validators());
  EXPECT_NE(dynamic_cast<const TuningDb*>(database.get()), nullptr);
  const auto log = open_tuning_records(log_path, testing::test_validators());
  EXPECT_NE(dynamic_cast<const TuningLog*>(log.get()), nullptr);
  EXPECT_EQ(log->measurements().size(), database->measurements().size());
  try {
    open_tuning_records(dir.file("missing.db"), testing::test_validators());
    FAIL() << "expected runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir.file("missing.db") + ": cannot open: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace qtune::records
