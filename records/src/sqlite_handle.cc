#include "sqlite_handle.h"

#include <chrono>
#include <thread>
#include <utility>

namespace qtune::records::sqlite {

namespace {

bool is_busy(int code) { return (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED; }

// A statement may be retried after SQLITE_BUSY when it is its own transaction, or when it is the
// BEGIN / COMMIT of one; inside an open transaction the caller must roll back instead.
bool retry_allowed(sqlite3* db, const std::string& sql) {
  return sqlite3_get_autocommit(db) != 0 || sql.rfind("BEGIN", 0) == 0 || sql.rfind("COMMIT", 0) == 0;
}

void back_off(int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(10 * (attempt + 1)));
}

}  // namespace

DbError error_from(int code, const std::string& path, const std::string& what, sqlite3* db) {
  const std::string detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  const std::string message = path + ": " + what + ": " + detail;
  switch (code & 0xff) {
    case SQLITE_NOTADB: return DbError(DbError::Kind::not_qtune, path + ": not a qtune database (" + detail + ")");
    case SQLITE_CORRUPT: return DbError(DbError::Kind::corrupt, path + ": corrupt database (" + detail + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return DbError(DbError::Kind::busy, message + " (other writers held the lock too long)");
    default: return DbError(DbError::Kind::io, message);
  }
}

Connection::Connection(const std::string& path, int flags) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    DbError error = error_from(rc, path, "cannot open", db_);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw error;
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Connection::~Connection() {
  if (db_) sqlite3_close_v2(db_);
}

void Connection::exec(const std::string& sql) {
  for (int attempt = 0;; ++attempt) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
    if (message) sqlite3_free(message);
    if (rc == SQLITE_OK) return;
    if (is_busy(rc) && attempt < kBusyRetries && retry_allowed(db_, sql)) {
      back_off(attempt);
      continue;
    }
    throw error_from(rc, path_, "cannot run '" + sql.substr(0, 60) + "'", db_);
  }
}

std::int64_t Connection::query_int(const std::string& sql) {
  Statement statement(*this, sql);
  if (!statement.step()) throw DbError(DbError::Kind::io, path_ + ": no result from '" + sql + "'");
  return statement.column_int(0);
}

std::string Connection::query_text(const std::string& sql) {
  Statement statement(*this, sql);
  if (!statement.step()) throw DbError(DbError::Kind::io, path_ + ": no result from '" + sql + "'");
  return statement.column_text(0);
}

Statement::Statement(Connection& connection, std::string_view sql) : connection_(connection), sql_(sql) {
  const int rc = sqlite3_prepare_v2(connection_.get(), sql_.data(), static_cast<int>(sql_.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) throw error_from(rc, connection_.path(), "cannot prepare '" + sql_.substr(0, 60) + "'", connection_.get());
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

namespace {
void check_bind(int rc, Connection& c) {
  if (rc != SQLITE_OK) throw error_from(rc, c.path(), "cannot bind a value", c.get());
}
}  // namespace

Statement& Statement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), connection_);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), connection_);
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT),
             connection_);
  return *this;
}

Statement& Statement::bind_null(int index) {
  check_bind(sqlite3_bind_null(stmt_, index), connection_);
  return *this;
}

bool Statement::step() {
  for (int attempt = 0;; ++attempt) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (is_busy(rc) && attempt < kBusyRetries && retry_allowed(connection_.get(), sql_)) {
      sqlite3_reset(stmt_);
      back_off(attempt);
      continue;
    }
    DbError error = error_from(rc, connection_.path(), "cannot run '" + sql_.substr(0, 60) + "'", connection_.get());
    sqlite3_reset(stmt_);
    throw error;
  }
}

int Statement::run() {
  while (step()) {
  }
  return sqlite3_changes(connection_.get());
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!text) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

std::optional<std::int64_t> Statement::column_optional_int(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int(column);
}

WriteTransaction::WriteTransaction(Connection& connection) : connection_(connection) {
  connection_.exec("BEGIN IMMEDIATE");
  open_ = true;
}

WriteTransaction::~WriteTransaction() {
  if (open_) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  connection_.exec("COMMIT");
  open_ = false;
}

ReadTransaction::ReadTransaction(Connection& connection) : connection_(connection) {
  connection_.exec("BEGIN DEFERRED");
}

ReadTransaction::~ReadTransaction() { sqlite3_exec(connection_.get(), "COMMIT", nullptr, nullptr, nullptr); }

}  // namespace qtune::records::sqlite
