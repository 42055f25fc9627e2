// Thin RAII wrappers over the SQLite C API with qtune's error policy: every failure becomes a
// DbError naming the file, and SQLITE_BUSY is retried (on top of the busy timeout) before giving up.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "qtune/records/errors.h"

namespace qtune::records::sqlite {

// How long writers wait for each other before the operation fails with DbError::Kind::busy.
inline constexpr int kBusyTimeoutMs = 5000;
inline constexpr int kBusyRetries = 12;  // after the timeout: total wait about one minute

DbError error_from(int code, const std::string& path, const std::string& what, sqlite3* db);

class Connection {
 public:
  Connection() = default;
  // flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE [| SQLITE_OPEN_CREATE].
  Connection(const std::string& path, int flags);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs statements without results (several separated by ';'), retrying while busy.
  void exec(const std::string& sql);
  // The first column of the first row of a query returning one integer (PRAGMA user_version).
  std::int64_t query_int(const std::string& sql);
  std::string query_text(const std::string& sql);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(Connection& connection, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
  Statement& bind_null(int index);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Advances to the next row: true when a row is available, false when done. Retries SQLITE_BUSY.
  bool step();
  // For statements without results; returns sqlite3_changes().
  int run();
  void reset();

  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<double> column_optional_double(int column) const;
  std::optional<std::int64_t> column_optional_int(int column) const;

 private:
  Connection& connection_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE (takes the write lock up front, so commits never fail with a busy snapshot);
// rolls back unless commit() was called.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& connection);
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();
  void commit();

 private:
  Connection& connection_;
  bool open_ = false;
};

// A consistent snapshot for multi-statement reads.
class ReadTransaction {
 public:
  explicit ReadTransaction(Connection& connection);
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;
  ~ReadTransaction();

 private:
  Connection& connection_;
};

}  // namespace qtune::records::sqlite
