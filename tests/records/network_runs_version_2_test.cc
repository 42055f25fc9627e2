// A database whose network_runs rows a qtune of schema version 2 wrote (tests/fixtures/
// network_runs_version_2: two `qtune run`s of a tiny network) is migrated to version 3 when opened
// writable: every row reads back as it was written, with the new columns saying "not recorded",
// and the file then stores timings with their cache state, quartiles and disturbance.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <tuple>
#include <vector>

#include "qtune/records/network_runs.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

// A row's columns of schema version 2, straight from the file.
using Version2Row = std::tuple<std::int64_t, std::string, std::string, std::string, std::string, std::string,
                               std::string, std::string, double, double>;

std::vector<Version2Row> version_2_columns(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT id, run_uid, measured_at, target_key, network, workload_key, impl, config_key,"
                               " median_ns, gops FROM network_runs ORDER BY id",
                               -1, &s, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  const auto text = [&](int column) { return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, column))); };
  std::vector<Version2Row> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    rows.emplace_back(sqlite3_column_int64(s, 0), text(1), text(2), text(3), text(4), text(5), text(6), text(7),
                      sqlite3_column_double(s, 8), sqlite3_column_double(s, 9));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

Version2Row version_2_columns(const NetworkRunRecord& r) {
  return {r.id, r.run_uid, r.timestamp, r.target_key, r.network, r.workload_key, r.impl, r.config_key, r.median_ns, r.gops};
}

class NetworkRunsVersion2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy_file(std::string(QTUNE_FIXTURE_DIR) + "/network_runs_version_2/version2.db", path);
  }
  testing::ScratchDir dir;
  std::string path = dir.file("version2.db");
};

TEST_F(NetworkRunsVersion2Test, RowsWrittenBeforeTheMigrationReadBackIdentical) {
  const auto before = version_2_columns(path);
  ASSERT_EQ(before.size(), 12u) << "two runs of two layers, tuned / default / oneDNN each";
  // Read-only never migrates: it reads the file as version 2, the rows as they are after the
  // migration.
  std::vector<NetworkRunRecord> read_only_rows;
  {
    auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
    EXPECT_EQ(db.schema_version(), 2);
    read_only_rows = network_runs(db);
  }
  ASSERT_EQ(read_only_rows.size(), before.size());
  std::size_t measurements = 0;
  {
    auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
    EXPECT_EQ(db.schema_version(), 3);
    measurements = db.measurements().size();
    EXPECT_GT(measurements, 0u);
    const auto rows = network_runs(db);
    ASSERT_EQ(rows.size(), before.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(version_2_columns(rows[i]), before[i]);
      EXPECT_EQ(version_2_columns(read_only_rows[i]), before[i]);
      EXPECT_EQ(read_only_rows[i].cache, rows[i].cache);
      EXPECT_EQ(read_only_rows[i].low_ns, rows[i].low_ns);
      EXPECT_EQ(rows[i].cache, "") << "version 2 did not record the cache state (one of these runs was cold)";
      EXPECT_FALSE(rows[i].low_ns);
      EXPECT_FALSE(rows[i].high_ns);
      EXPECT_FALSE(rows[i].repetitions);
      EXPECT_FALSE(rows[i].waiting_share);
      EXPECT_FALSE(rows[i].retimed);
      EXPECT_FALSE(rows[i].disturbed);
    }
    EXPECT_EQ(db.integrity_check(), "ok");
  }
  // The columns of version 2 are untouched in the file itself.
  EXPECT_EQ(version_2_columns(path), before);
  auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  EXPECT_EQ(db.measurements().size(), measurements);
}

TEST_F(NetworkRunsVersion2Test, TheMigratedFileStoresHowEachTimingWasMeasured) {
  auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
  NetworkRunRecord row = network_runs(db).front();
  row.id = 0;
  row.run_uid = "after-migration";
  row.timestamp.clear();
  row.cache = "cold";
  row.low_ns = row.median_ns * 0.9;
  row.high_ns = row.median_ns * 1.2;
  row.repetitions = 10;
  row.waiting_share = 0.07;
  row.retimed = 2;
  row.disturbed = true;
  const std::int64_t id = add_network_run(db, row);
  NetworkRunFilter filter;
  filter.run_uid = "after-migration";
  const auto stored = network_runs(db, filter);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, id);
  EXPECT_EQ(stored[0].cache, "cold");
  EXPECT_EQ(stored[0].low_ns, row.low_ns);
  EXPECT_EQ(stored[0].high_ns, row.high_ns);
  EXPECT_EQ(stored[0].repetitions, 10);
  EXPECT_EQ(stored[0].waiting_share, 0.07);
  EXPECT_EQ(stored[0].retimed, 2);
  EXPECT_EQ(stored[0].disturbed, true);
}

TEST_F(NetworkRunsVersion2Test, RefusesTimingsWithoutTheirConditionsNamingTheField) {
  auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
  NetworkRunRecord row = network_runs(db).front();
  row.run_uid = "refused";
  row.timestamp.clear();
  row.cache = "warm";
  const auto expect_refused = [&](NetworkRunRecord bad, const std::string& message_part) {
    try {
      add_network_run(db, bad);
      ADD_FAILURE() << "accepted a row that should mention " << message_part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
    }
  };
  auto bad = row;
  bad.cache = "";
  expect_refused(bad, "field 'cache': '' is not one of warm, cold");
  bad = row;
  bad.low_ns = row.median_ns / 2;
  expect_refused(bad, "quartiles come in pairs");
  bad.high_ns = row.median_ns / 1.5;
  expect_refused(bad, "the quartiles must enclose the median");
  bad = row;
  bad.repetitions = 0;
  expect_refused(bad, "field 'repetitions'");
  bad = row;
  bad.waiting_share = -0.5;
  expect_refused(bad, "field 'waiting_share'");
  bad = row;
  bad.retimed = -1;
  expect_refused(bad, "field 'retimed'");
  NetworkRunFilter filter;
  filter.run_uid = "refused";
  EXPECT_TRUE(network_runs(db, filter).empty());
}

}  // namespace
}  // namespace qtune::records
