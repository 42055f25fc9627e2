// The database's own behaviour: best = fastest correct, sessions, tuning curves, filters, and
// what add_measurement refuses.
#include "qtune/records/tuning_db.h"

#include <gtest/gtest.h>

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

class TuningDbTest : public ::testing::Test {
 protected:
  testing::ScratchDir dir;
  std::string path = dir.file("tuning.db");
};

TEST_F(TuningDbTest, CreatesANewDatabaseAndReopensIt) {
  {
    auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
    EXPECT_EQ(db.schema_version(), TuningDb::kSchemaVersion);
    db.add_measurement(correct(kWorkload, kTarget, config_key(8, 256), 1000));
  }
  auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
  EXPECT_EQ(db.measurements().size(), 1u);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST_F(TuningDbTest, MissingFileIsAnErrorUnlessCreating) {
  try {
    TuningDb::open(path, OpenMode::existing, opaque_keys());
    FAIL() << "expected an error";
  } catch (const DbError& e) {
    EXPECT_EQ(e.kind(), DbError::Kind::not_found);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  EXPECT_THROW(TuningDb::open(path, OpenMode::read_only, opaque_keys()), DbError);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(TuningDbTest, BestIsTheFastestCorrectMeasurementAndErrorsNeverWin) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  db.add_measurement(correct(kWorkload, kTarget, config_key(8, 256), 1500));
  db.add_measurement(correct(kWorkload, kTarget, config_key(4, 256), 900));
  db.add_measurement(correct(kWorkload, kTarget, config_key(8, 512), 1200));
  // An error with a tiny time (a wrong answer can be fast) must never be the best.
  auto wrong = correct(kWorkload, kTarget, config_key(2, 128), 10);
  wrong.error_kind = "wrong_answer";
  wrong.error_message = "max abs diff 3 at (0, 5)";
  db.add_measurement(wrong);
  db.add_measurement(failed(kWorkload, kTarget, config_key(6, 128), "crash"));
  // Another target's faster result is kept apart.
  db.add_measurement(correct(kWorkload, kTarget2, config_key(8, 128), 100));

  auto best = db.best(kWorkload, kTarget);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->measurement.config_key, config_key(4, 256));
  EXPECT_DOUBLE_EQ(best->measurement.stats->median_ns, 900);
  EXPECT_EQ(best->trials, 5);
  EXPECT_EQ(best->failures, 2);
  EXPECT_EQ(db.best(kWorkload, kTarget2)->measurement.config_key, config_key(8, 128));
  EXPECT_FALSE(db.best(kWorkload2, kTarget));
}

TEST_F(TuningDbTest, OnlyErrorsMeansNoBest) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  db.add_measurement(failed(kWorkload, kTarget, config_key(8, 256), "timeout"));
  EXPECT_FALSE(db.best(kWorkload, kTarget));
  EXPECT_TRUE(db.all_best().empty());
  EXPECT_TRUE(db.has_measured(kWorkload, kTarget, config_key(8, 256)));
}

TEST_F(TuningDbTest, AllBestHasOneRowPerWorkloadAndTargetAndFilters) {
  auto db = TuningDb::open(path, OpenMode::create, testing::test_validators());
  for (int kc : {128, 256, 512}) {
    db.add_measurement(correct(kWorkload, kTarget, config_key(8, kc), 1000.0 - kc));
    db.add_measurement(correct(kWorkload2, kTarget, config_key(8, kc), 2000.0 + kc));
    db.add_measurement(correct(kWorkload, kTarget2, config_key(8, kc), 3000.0));
  }
  const auto all = db.all_best();
  ASSERT_EQ(all.size(), 3u);
  for (const auto& b : all) EXPECT_EQ(b.trials, 3);

  MeasurementFilter by_target;
  by_target.target_key = kTarget;
  EXPECT_EQ(db.all_best(by_target).size(), 2u);

  MeasurementFilter by_shape;
  by_shape.shape_contains = "m=49;";
  const auto shaped = db.all_best(by_shape);
  ASSERT_EQ(shaped.size(), 1u);
  EXPECT_EQ(shaped[0].measurement.config_key, config_key(8, 128));

  MeasurementFilter by_op;
  by_op.op = "conv2d";
  EXPECT_TRUE(db.all_best(by_op).empty());
  by_op.op = "gemm";
  EXPECT_EQ(db.all_best(by_op).size(), 3u);

  // Ties go to the earlier measurement.
  EXPECT_EQ(db.best(kWorkload, kTarget2)->measurement.config_key, config_key(8, 128));

  const auto workloads = db.workloads();
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].op, "gemm");
  EXPECT_EQ(workloads[0].description, "gemm test");  // from the validator
  ASSERT_TRUE(workloads[0].gops);
  const auto targets = db.targets();
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].arch, "aarch64");
  EXPECT_EQ(targets[0].cpu, "Cortex-A76");
  EXPECT_EQ(targets[1].measurements, 6);
}

TEST_F(TuningDbTest, MeasurementsRoundTripEveryField) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  auto record = correct(kWorkload, kTarget, config_key(8, 256), 1234.5, "2024-05-01T12:00:00.5Z");
  const auto id = db.add_measurement(record);
  const auto stored = db.measurements();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, id);
  EXPECT_EQ(stored[0].workload_key, record.workload_key);
  EXPECT_EQ(stored[0].target_key, record.target_key);
  EXPECT_EQ(stored[0].config_key, record.config_key);
  EXPECT_EQ(*stored[0].stats, *record.stats);
  EXPECT_EQ(stored[0].settings, record.settings);
  EXPECT_EQ(stored[0].timestamp, "2024-05-01T12:00:00.500000Z");  // canonical spelling
  EXPECT_EQ(stored[0].source, MeasurementSource::measured);
  EXPECT_FALSE(stored[0].session_id);
}

TEST_F(TuningDbTest, SameMeasurementTwiceIsStoredOnce) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  const auto record = correct(kWorkload, kTarget, config_key(8, 256), 1000, "2024-05-01T12:00:00Z");
  const auto first = db.add_measurement(record);
  EXPECT_EQ(db.add_measurement(record), first);
  EXPECT_EQ(db.measurements().size(), 1u);
  // Same keys and time but a different result is a different measurement.
  auto other = record;
  other.stats->median_ns = 1001;
  EXPECT_NE(db.add_measurement(other), first);
  EXPECT_EQ(db.measurements().size(), 2u);
}

TEST_F(TuningDbTest, RejectsInconsistentRecordsNamingTheField) {
  auto db = TuningDb::open(path, OpenMode::create, testing::test_validators());
  auto negative = correct(kWorkload, kTarget, config_key(8, 256), 1000);
  negative.stats->min_ns = -1;
  try {
    db.add_measurement(negative);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("field 'stats.min_ns': must be >= 0"), std::string::npos) << e.what();
  }
  auto no_stats = correct(kWorkload, kTarget, config_key(8, 256), 1000);
  no_stats.stats.reset();
  EXPECT_THROW(db.add_measurement(no_stats), std::invalid_argument);
  auto bad_time = correct(kWorkload, kTarget, config_key(8, 256), 1000, "yesterday");
  EXPECT_THROW(db.add_measurement(bad_time), std::invalid_argument);

  try {
    db.add_measurement(correct(kWorkload, kTarget, "isa=avx2;colour=blue", 1000));
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("field 'config': unknown knob 'colour'"), std::string::npos) << e.what();
  }
  auto unknown_session = correct(kWorkload, kTarget, config_key(8, 256), 1000);
  unknown_session.session_id = 42;
  EXPECT_THROW(db.add_measurement(unknown_session), std::invalid_argument);
  EXPECT_TRUE(db.measurements().empty());
}

TEST_F(TuningDbTest, SessionsRecordTheirTrialsInOrder) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  SessionInfo info{"qtune tune --db tuning.db", "evolutionary", 42, kTarget, "0.1.0"};
  const auto session = db.begin_session(info);
  const double medians[] = {1500, 1700, 1200, 1300, 900};
  int i = 0;
  for (double median : medians) {
    auto r = correct(i % 2 ? kWorkload2 : kWorkload, kTarget, config_key(8, 128 * (i + 1)), median);
    r.session_id = session;
    db.add_measurement(r);
    ++i;
  }
  auto crash = failed(kWorkload, kTarget, config_key(2, 128), "crash");
  crash.session_id = session;
  db.add_measurement(crash);
  db.end_session(session, SessionStatus::completed);

  const auto s = db.session(session);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, SessionStatus::completed);
  EXPECT_EQ(s->info.seed, 42u);
  EXPECT_EQ(s->info.strategy, "evolutionary");
  EXPECT_EQ(s->info.target_key, kTarget);
  EXPECT_EQ(s->measurements, 6);
  EXPECT_FALSE(s->ended_at.empty());
  EXPECT_EQ(db.sessions().size(), 1u);

  const auto curve = db.tuning_curve(session, std::string(kWorkload));
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve[0].trial, 1);
  EXPECT_EQ(curve[1].trial, 3);
  EXPECT_EQ(*curve[0].best_so_far_ns, 1500);
  EXPECT_EQ(*curve[1].best_so_far_ns, 1200);
  EXPECT_EQ(*curve[2].best_so_far_ns, 900);
  EXPECT_EQ(curve[3].error_kind, "crash");
  EXPECT_EQ(*curve[3].best_so_far_ns, 900);
  EXPECT_EQ(db.tuning_curve(session).size(), 6u);

  EXPECT_THROW(db.end_session(session + 1, SessionStatus::failed), std::invalid_argument);
}

TEST_F(TuningDbTest, MeasuredConfigsAndTargetMeasurements) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  db.add_measurement(correct(kWorkload, kTarget, config_key(8, 256), 1000));
  db.add_measurement(failed(kWorkload, kTarget, config_key(4, 256), "invalid_config"));
  db.add_measurement(correct(kWorkload2, kTarget, config_key(8, 256), 1000));
  db.add_measurement(correct(kWorkload, kTarget2, config_key(8, 512), 1000));
  EXPECT_EQ(db.measured_configs(kWorkload, kTarget),
            (std::vector<std::string>{config_key(4, 256), config_key(8, 256)}));
  EXPECT_FALSE(db.has_measured(kWorkload, kTarget, config_key(8, 512)));
  MeasurementFilter of_target;
  of_target.target_key = kTarget;
  EXPECT_EQ(db.measurements(of_target).size(), 3u);
  of_target.correct_only = true;
  EXPECT_EQ(db.measurements(of_target).size(), 2u);
}

TEST_F(TuningDbTest, ReadOnlyNeverWrites) {
  TuningDb::open(path, OpenMode::create, opaque_keys()).add_measurement(correct(kWorkload, kTarget, config_key(8, 256), 1000));
  auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  EXPECT_TRUE(db.read_only());
  EXPECT_EQ(db.all_best().size(), 1u);
  EXPECT_THROW(db.add_measurement(correct(kWorkload, kTarget, config_key(4, 256), 900)), DbError);
  EXPECT_THROW(db.begin_session({}), DbError);
}

}  // namespace
}  // namespace qtune::records
