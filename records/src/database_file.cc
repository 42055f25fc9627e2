#include "database_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "schema.h"

namespace qtune::records {

namespace {

DbError not_qtune(const std::string& path, const std::string& why) {
  return DbError(DbError::Kind::not_qtune, path + ": not a qtune database (" + why + ")");
}

bool has_sqlite_header(const std::string& path) {
  static constexpr char kMagic[16] = "SQLite format 3";  // 15 characters and the terminating NUL
  std::array<char, 16> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), head.size());
  return in.gcount() == static_cast<std::streamsize>(head.size()) && std::memcmp(head.data(), kMagic, 16) == 0;
}

std::string table_list(sqlite::Connection& c) {
  sqlite::Statement s(c, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name LIMIT 6");
  std::string names;
  int n = 0;
  while (s.step()) {
    if (++n > 5) {
      names += ", ...";
      break;
    }
    if (!names.empty()) names += ", ";
    names += s.column_text(0);
  }
  return names;
}

// SQLite reports a damaged file from whichever statement first touches the damage; all of them
// mean the same to the user.
DbError as_corrupt(const DbError& e) {
  if (e.kind() == DbError::Kind::corrupt || e.kind() == DbError::Kind::not_qtune) return e;
  return DbError(DbError::Kind::corrupt, std::string(e.what()));
}

std::string random_suffix() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> hex(0, 15);
  std::string s;
  for (int i = 0; i < 12; ++i) s += "0123456789abcdef"[hex(device)];
  return s;
}

void remove_if_present(const std::string& path) { ::unlink(path.c_str()); }

}  // namespace

int inspect_database_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw DbError(DbError::Kind::not_found, path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw not_qtune(path, "not a regular file");
  if (info.st_size == 0) throw not_qtune(path, "empty file");
  if (!has_sqlite_header(path)) throw not_qtune(path, "not an SQLite file");

  sqlite::Connection c(path, SQLITE_OPEN_READONLY);
  std::int64_t application_id = 0, version = 0;
  try {
    application_id = c.query_int("PRAGMA application_id");
    if (application_id != schema::kApplicationId) {
      const std::string tables = table_list(c);
      throw not_qtune(path, tables.empty() ? "no qtune schema" : "foreign schema with tables " + tables);
    }
    version = c.query_int("PRAGMA user_version");
  } catch (const DbError& e) {
    throw as_corrupt(e);
  }
  if (version > schema::latest_version())
    throw DbError(DbError::Kind::newer_version,
                  path + ": written by a newer qtune (schema version " + std::to_string(version) +
                      ", this qtune reads up to " + std::to_string(schema::latest_version()) +
                      "); upgrade qtune to use it");
  if (version < 1) throw not_qtune(path, "qtune schema incomplete");
  // A version set back by hand (PRAGMA user_version) would send the file through migrations it has
  // already had, which fail halfway ("table ... already exists"): refuse it before anyone writes.
  for (const auto& migration : schema::migrations()) {
    if (migration.to_version <= version) continue;
    bool present = false;
    try {
      if (migration.first_column) {
        sqlite::Statement s(c, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
        s.bind(1, std::string(migration.first_table)).bind(2, std::string(migration.first_column));
        present = s.step();
      } else {
        sqlite::Statement s(c, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
        s.bind(1, std::string(migration.first_table));
        present = s.step();
      }
    } catch (const DbError& e) {
      throw as_corrupt(e);
    }
    if (present)
      throw DbError(DbError::Kind::corrupt,
                    path + ": inconsistent schema: PRAGMA user_version says " + std::to_string(version) +
                        " but the file already has " +
                        (migration.first_column ? std::string("column ") + migration.first_table + "." +
                                                      migration.first_column
                                                : std::string("table ") + migration.first_table) +
                        " of version " + std::to_string(migration.to_version) +
                        " (the version was changed outside qtune); the file was left unchanged");
  }

  // The file is ours: make sure it is whole before anyone builds on it. quick_check reads every
  // page, so truncated and overwritten files are caught here rather than halfway through a query.
  std::string verdict;
  try {
    sqlite::Statement check(c, "PRAGMA quick_check(5)");
    while (check.step()) {
      if (!verdict.empty()) verdict += "; ";
      verdict += check.column_text(0);
    }
  } catch (const DbError& e) {
    throw as_corrupt(e);
  }
  if (verdict != "ok")
    throw DbError(DbError::Kind::corrupt, path + ": corrupt database (integrity check: " + verdict + ")");
  return static_cast<int>(version);
}

void create_database_file(const std::string& path) {
  const std::string temporary = path + ".qtune-new-" + random_suffix();
  try {
    {
      sqlite::Connection c(temporary, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      c.exec("PRAGMA journal_mode = WAL");  // persistent: recorded in the file header
      sqlite::WriteTransaction transaction(c);
      schema::migrate(c, 0);
      transaction.commit();
    }  // closing the only connection checkpoints the WAL into the file
    if (::link(temporary.c_str(), path.c_str()) != 0 && errno != EEXIST)
      throw DbError(DbError::Kind::io, path + ": cannot create: " + std::strerror(errno));
  } catch (...) {
    remove_if_present(temporary);
    remove_if_present(temporary + "-wal");
    remove_if_present(temporary + "-shm");
    throw;
  }
  remove_if_present(temporary);
}

sqlite::Connection connect(const std::string& path, OpenMode mode, int& schema_version) {
  schema_version = inspect_database_file(path);
  if (mode == OpenMode::read_only) {
    // An older version is read as it is: its migrations only added tables and columns, which the
    // reads of network_runs (the only ones added since version 1) find missing by the version.
    // Databases of an earlier qtune keep loading read-only (the runtime, export, query, report).
    sqlite::Connection c(path, SQLITE_OPEN_READONLY);
    c.exec("PRAGMA query_only = ON");
    return c;
  }
  sqlite::Connection c(path, SQLITE_OPEN_READWRITE);
  c.exec("PRAGMA foreign_keys = ON");
  c.exec(kSynchronousMode);
  if (schema_version < schema::latest_version()) {
    sqlite::WriteTransaction transaction(c);
    // Another process may have migrated it between the inspection and the lock.
    schema_version = static_cast<int>(c.query_int("PRAGMA user_version"));
    schema::migrate(c, schema_version);
    transaction.commit();
    schema_version = schema::latest_version();
  }
  if (c.query_text("PRAGMA journal_mode") != "wal") c.exec("PRAGMA journal_mode = WAL");
  return c;
}

}  // namespace qtune::records
