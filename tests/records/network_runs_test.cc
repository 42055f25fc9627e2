// Timings of `qtune run` in the network_runs table (schema version 2): storing, filtering, what is
// refused, and the forward migration of a version-1 database that keeps its rows.
#include "qtune/records/network_runs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::config_key;
using testing::correct;
using testing::kTarget;
using testing::kTarget2;
using testing::kWorkload;
using testing::kWorkload2;

NetworkRunRecord run_row(const std::string& uid, const std::string& workload, const std::string& impl, double ns) {
  NetworkRunRecord r;
  r.run_uid = uid;
  r.target_key = kTarget;
  r.network = "resnet50";
  r.workload_key = workload;
  r.impl = impl;
  r.config_key = impl == kImplOneDnn ? "" : config_key(8, 256);
  r.median_ns = ns;
  r.gops = 0.231 / (ns * 1e-9) / 1e9;
  r.cache = "warm";
  return r;
}

class NetworkRunsTest : public ::testing::Test {
 protected:
  void sqlite_exec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  std::int64_t sqlite_int(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    std::int64_t value = -1;
    if (sqlite3_step(s) == SQLITE_ROW) value = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return value;
  }

  testing::ScratchDir dir;
  std::string path = dir.file("tuning.db");
};

TEST_F(NetworkRunsTest, StoresAndFiltersRowsInInsertionOrder) {
  auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
  const std::string uid = new_run_uid();
  EXPECT_EQ(uid.size(), 32u);
  EXPECT_NE(uid, new_run_uid());
  add_network_runs(db, {run_row(uid, kWorkload, kImplTuned, 1000), run_row(uid, kWorkload, kImplDefault, 2500),
                        run_row(uid, kWorkload, kImplOneDnn, 1400), run_row(uid, kWorkload2, kImplTuned, 300)});
  NetworkRunRecord other_target = run_row("run-2", kWorkload, kImplOneDnn, 900);
  other_target.target_key = kTarget2;
  other_target.timestamp = "2024-05-01T12:00:00Z";
  const std::int64_t id = add_network_run(db, other_target);

  const auto all = network_runs(db);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].impl, kImplTuned);
  EXPECT_EQ(all[1].impl, kImplDefault);
  EXPECT_EQ(all[1].median_ns, 2500);
  EXPECT_EQ(all[2].config_key, "");
  EXPECT_EQ(all[3].workload_key, kWorkload2);
  EXPECT_EQ(all[4].id, id);
  EXPECT_EQ(all[4].timestamp, "2024-05-01T12:00:00.000000Z");
  EXPECT_FALSE(all[0].timestamp.empty()) << "an empty timestamp becomes now";

  NetworkRunFilter onednn;
  onednn.impl = kImplOneDnn;
  EXPECT_EQ(network_runs(db, onednn).size(), 2u);
  onednn.target_key = kTarget;
  const auto mine = network_runs(db, onednn);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_DOUBLE_EQ(mine[0].median_ns, 1400);
  EXPECT_EQ(mine[0].network, "resnet50");
  NetworkRunFilter by_run;
  by_run.run_uid = uid;
  by_run.workload_key = kWorkload;
  EXPECT_EQ(network_runs(db, by_run).size(), 3u);
}

TEST_F(NetworkRunsTest, RefusesInconsistentRowsNamingTheField) {
  auto db = TuningDb::open(path, OpenMode::create, testing::test_validators());
  auto expect_refused = [&](NetworkRunRecord row, const std::string& message_part) {
    try {
      add_network_run(db, row);
      ADD_FAILURE() << "accepted a row that should mention " << message_part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
    }
  };
  NetworkRunRecord row = run_row("r", kWorkload, kImplTuned, 1000);
  auto bad = row;
  bad.impl = "xnnpack";
  expect_refused(bad, "field 'impl': 'xnnpack' is not one of tuned, default, onednn");
  bad = row;
  bad.median_ns = 0;
  expect_refused(bad, "field 'median_ns'");
  bad = row;
  bad.config_key = "";
  expect_refused(bad, "field 'config'");
  bad = row;
  bad.workload_key = "pool:x=1";
  expect_refused(bad, "field 'workload': unknown operator");
  bad = row;
  bad.target_key = "cpu=x";
  expect_refused(bad, "field 'target'");
  bad = row;
  bad.timestamp = "yesterday";
  expect_refused(bad, "field 'timestamp'");
  bad = row;
  bad.run_uid = "";
  expect_refused(bad, "field 'run_uid'");

  add_network_run(db, row);
  expect_refused(row, "already has a 'tuned' timing");

  // A batch with one bad row writes nothing.
  auto good = run_row("batch", kWorkload2, kImplTuned, 10);
  bad = run_row("batch", kWorkload2, "mkl", 10);
  EXPECT_THROW(add_network_runs(db, {good, bad}), std::invalid_argument);
  // A batch that collides with itself rolls back as a whole.
  EXPECT_THROW(add_network_runs(db, {good, good}), std::invalid_argument);
  EXPECT_EQ(network_runs(db).size(), 1u);
}

TEST_F(NetworkRunsTest, ReadOnlyDatabaseReadsButRefusesWrites) {
  {
    auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
    add_network_run(db, run_row("r", kWorkload, kImplOneDnn, 1000));
  }
  auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  EXPECT_EQ(network_runs(db).size(), 1u);
  EXPECT_THROW(add_network_run(db, run_row("r2", kWorkload, kImplOneDnn, 1000)), DbError);
}

// A database written before network_runs existed (schema version 1) is migrated forward when
// opened writable, keeps every measurement and session, and then stores runs.
TEST_F(NetworkRunsTest, MigratesAVersionOneDatabaseKeepingItsRows) {
  std::int64_t session_id = 0;
  {
    auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
    SessionInfo info;
    info.strategy = "random";
    info.target_key = kTarget;
    session_id = db.begin_session(info);
    for (int i = 0; i < 5; ++i) {
      auto r = correct(kWorkload, kTarget, config_key(8, 64 * (i + 1)), 1000 + 10 * i);
      r.session_id = session_id;
      db.add_measurement(r);
    }
    db.end_session(session_id, SessionStatus::completed);
  }
  // Exactly what version 1 built: the same tables without network_runs, user_version 1.
  sqlite_exec("DROP TABLE network_runs; PRAGMA user_version = 1;");
  ASSERT_EQ(sqlite_int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'network_runs'"), 0);
  ASSERT_EQ(sqlite_int("PRAGMA user_version"), 1);

  // Read-only never migrates: it reads the file as version 1 (every measurement, no runs).
  {
    auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
    EXPECT_EQ(db.schema_version(), 1);
    EXPECT_EQ(db.measurements().size(), 5u);
    EXPECT_TRUE(network_runs(db).empty());
  }
  EXPECT_EQ(sqlite_int("PRAGMA user_version"), 1);

  {
    auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
    EXPECT_EQ(db.schema_version(), TuningDb::kSchemaVersion);
    EXPECT_EQ(db.measurements().size(), 5u);
    ASSERT_TRUE(db.session(session_id));
    EXPECT_EQ(db.session(session_id)->measurements, 5);
    EXPECT_EQ(db.best(kWorkload, kTarget)->measurement.stats->median_ns, 1000);
    EXPECT_TRUE(network_runs(db).empty());
    add_network_run(db, run_row("after-migration", kWorkload, kImplTuned, 1000));
    EXPECT_EQ(db.integrity_check(), "ok");
  }
  EXPECT_EQ(sqlite_int("PRAGMA user_version"), TuningDb::kSchemaVersion);
  auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  EXPECT_EQ(network_runs(db).size(), 1u);
  EXPECT_EQ(db.measurements().size(), 5u);
}

}  // namespace
}  // namespace qtune::records
