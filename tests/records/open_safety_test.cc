// Files that are not sound qtune databases of a known version give a clear error and are left
// byte for byte as they were: nothing is created in them, migrated or repaired.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "qtune/records/tuning_db.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::read_bytes;
using testing::write_bytes;

class OpenSafetyTest : public ::testing::Test {
 protected:
  // Every mode must refuse the file with the expected kind and message, leaving it unchanged.
  void expect_refused(const std::string& path, DbError::Kind kind, const std::string& message_part) {
    const std::string before = read_bytes(path);
    for (OpenMode mode : {OpenMode::read_only, OpenMode::existing, OpenMode::create}) {
      SCOPED_TRACE(static_cast<int>(mode));
      try {
        TuningDb::open(path, mode, opaque_keys());
        ADD_FAILURE() << "opened " << path;
      } catch (const DbError& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << "message should start with the file: " << e.what();
      }
      EXPECT_EQ(read_bytes(path), before) << "file modified";
    }
  }

  void sqlite_exec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  // A real qtune database with enough rows to span many pages.
  void make_database(const std::string& path) {
    auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
    std::vector<MeasurementRecord> records;
    for (int i = 0; i < 400; ++i)
      records.push_back(testing::correct(testing::kWorkload, testing::kTarget, testing::config_key(8, 4 * (i + 1)),
                                         1000 + i));
    db.add_measurements(records);
  }

  testing::ScratchDir dir;
};

TEST_F(OpenSafetyTest, EmptyFile) {
  const auto path = dir.file("empty.db");
  write_bytes(path, "");
  expect_refused(path, DbError::Kind::not_qtune, "not a qtune database (empty file)");
}

TEST_F(OpenSafetyTest, RandomBytes) {
  const auto path = dir.file("random.db");
  std::mt19937 rng(7);
  std::string bytes(8192, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng());
  write_bytes(path, bytes);
  expect_refused(path, DbError::Kind::not_qtune, "not a qtune database (not an SQLite file)");
}

TEST_F(OpenSafetyTest, TextFile) {
  const auto path = dir.file("notes.db");
  write_bytes(path, "{\"format\":\"qtune-log/1\"}\n");
  expect_refused(path, DbError::Kind::not_qtune, "not an SQLite file");
}

TEST_F(OpenSafetyTest, ForeignSqliteDatabase) {
  const auto path = dir.file("foreign.db");
  sqlite_exec(path, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x');");
  expect_refused(path, DbError::Kind::not_qtune, "foreign schema with tables customers");
}

TEST_F(OpenSafetyTest, SqliteDatabaseWithoutTables) {
  const auto path = dir.file("blank.db");
  sqlite_exec(path, "PRAGMA user_version = 3; PRAGMA page_size = 4096; VACUUM;");
  ASSERT_GT(std::filesystem::file_size(path), 0u);
  expect_refused(path, DbError::Kind::not_qtune, "not a qtune database (no qtune schema)");
}

TEST_F(OpenSafetyTest, FutureSchemaVersion) {
  const auto path = dir.file("future.db");
  make_database(path);
  sqlite_exec(path, "PRAGMA user_version = " + std::to_string(TuningDb::kSchemaVersion + 1));
  expect_refused(path, DbError::Kind::newer_version,
                 "written by a newer qtune (schema version " + std::to_string(TuningDb::kSchemaVersion + 1));
}

TEST_F(OpenSafetyTest, TruncatedFile) {
  const auto path = dir.file("truncated.db");
  make_database(path);
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 8 * 4096u) << "database too small to truncate meaningfully";
  std::filesystem::resize_file(path, size / 2);
  expect_refused(path, DbError::Kind::corrupt, "corrupt database");
}

TEST_F(OpenSafetyTest, OverwrittenPages) {
  const auto path = dir.file("damaged.db");
  make_database(path);
  std::string bytes = read_bytes(path);
  for (std::size_t i = 2 * 4096; i < 4 * 4096 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  write_bytes(path, bytes);
  expect_refused(path, DbError::Kind::corrupt, "corrupt database");
}

TEST_F(OpenSafetyTest, SoundDatabaseOpensInEveryMode) {
  const auto path = dir.file("tuning.db");
  make_database(path);
  for (OpenMode mode : {OpenMode::read_only, OpenMode::existing, OpenMode::create}) {
    auto db = TuningDb::open(path, mode, opaque_keys());
    EXPECT_EQ(db.measurements().size(), 400u);
  }
}

}  // namespace
}  // namespace qtune::records

namespace qtune::records {
namespace {

// PRAGMA user_version set back by hand (2 -> 1): migrating again would fail halfway ("table
// network_runs already exists"); every mode refuses it up front and leaves it as it was.
TEST_F(OpenSafetyTest, SchemaVersionSetBackByHand) {
  const auto path = dir.file("set_back.db");
  make_database(path);
  sqlite_exec(path, "PRAGMA user_version = 1");
  expect_refused(path, DbError::Kind::corrupt,
                 "inconsistent schema: PRAGMA user_version says 1 but the file already has table network_runs of version 2");
}

// Set back past a migration that added columns (3 -> 2): the column gives it away the same way.
TEST_F(OpenSafetyTest, SchemaVersionSetBackPastAddedColumns) {
  const auto path = dir.file("set_back_columns.db");
  make_database(path);
  sqlite_exec(path, "PRAGMA user_version = 2");
  expect_refused(path, DbError::Kind::corrupt,
                 "inconsistent schema: PRAGMA user_version says 2 but the file already has column network_runs.cache "
                 "of version 3");
}

// A settings column that is not readable JSON (written by another program): a DbError naming the
// row, never a crash while the measurement is read.
TEST_F(OpenSafetyTest, UnreadableSettingsColumnNamesTheRow) {
  const auto path = dir.file("settings.db");
  make_database(path);
  sqlite_exec(path, "UPDATE measurements SET settings = '" + std::string(60000, '[') + "' WHERE id = 7");
  const auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  try {
    (void)db.measurements();
    ADD_FAILURE() << "read an unreadable settings column";
  } catch (const DbError& e) {
    EXPECT_EQ(e.kind(), DbError::Kind::corrupt);
    EXPECT_NE(std::string(e.what()).find("measurement 7: the settings column is not readable JSON (nested deeper than 256 levels)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace qtune::records
