#include "qtune/records/network_runs.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "database_file.h"
#include "fingerprint.h"
#include "qtune/records/timestamp.h"
#include "sqlite_handle.h"

namespace qtune::records {

namespace {

// TuningDb keeps its connection private; these rows go through a second connection to the same
// file, which TuningDb::open has already checked and migrated. WAL lets both coexist, and every
// write here is its own transaction like add_measurement's.
sqlite::Connection connect_to(const TuningDb& db) {
  if (db.read_only()) {
    sqlite::Connection c(db.path(), SQLITE_OPEN_READONLY);
    c.exec("PRAGMA query_only = ON");
    return c;
  }
  sqlite::Connection c(db.path(), SQLITE_OPEN_READWRITE);
  c.exec(kSynchronousMode);
  return c;
}

bool known_impl(const std::string& impl) { return impl == kImplTuned || impl == kImplDefault || impl == kImplOneDnn; }

// The row with a canonical timestamp, or std::invalid_argument naming what is wrong.
NetworkRunRecord checked(const TuningDb& db, const NetworkRunRecord& run) {
  auto fail = [&](const std::string& field, const std::string& why) {
    throw std::invalid_argument("invalid network run of layer '" + run.workload_key + "': field '" + field + "': " + why);
  };
  if (run.run_uid.empty()) fail("run_uid", "empty");
  if (run.target_key.empty()) fail("target", "empty");
  if (run.workload_key.empty()) fail("workload", "empty");
  if (!known_impl(run.impl)) fail("impl", "'" + run.impl + "' is not one of tuned, default, onednn");
  if (run.impl != kImplOneDnn && run.config_key.empty()) fail("config", "a qtune implementation needs its config key");
  if (!std::isfinite(run.median_ns) || run.median_ns <= 0) fail("median_ns", "must be a positive time");
  if (!std::isfinite(run.gops) || run.gops < 0) fail("gops", "must be a non-negative throughput");
  if (run.cache != "warm" && run.cache != "cold") fail("cache", "'" + run.cache + "' is not one of warm, cold");
  if (run.low_ns.has_value() != run.high_ns.has_value()) fail("low_ns", "quartiles come in pairs: low_ns and high_ns");
  if (run.low_ns && !(std::isfinite(*run.low_ns) && std::isfinite(*run.high_ns) && *run.low_ns >= 0 &&
                      *run.low_ns <= run.median_ns && run.median_ns <= *run.high_ns))
    fail("low_ns", "the quartiles must enclose the median (low_ns <= median_ns <= high_ns)");
  if (run.repetitions && *run.repetitions < 1) fail("repetitions", "must be at least 1");
  if (run.waiting_share && !(std::isfinite(*run.waiting_share) && *run.waiting_share >= 0))
    fail("waiting_share", "must be a non-negative share");
  if (run.retimed && *run.retimed < 0) fail("retimed", "must not be negative");
  const auto& v = db.validators();
  std::string config_key = run.config_key;
  try {
    if (v.workload) v.workload(run.workload_key);
  } catch (const std::exception& e) {
    fail("workload", e.what());
  }
  try {
    if (v.target) v.target(run.target_key);
  } catch (const std::exception& e) {
    fail("target", e.what());
  }
  try {
    const auto& validate = v.run_config ? v.run_config : v.config;
    if (validate && !run.config_key.empty()) config_key = validate(run.workload_key, run.config_key);
  } catch (const std::exception& e) {
    fail("config", e.what());
  }
  NetworkRunRecord out = run;
  out.config_key = config_key;
  if (run.timestamp.empty()) {
    out.timestamp = utc_now_iso8601();
  } else if (auto canonical = canonical_timestamp(run.timestamp)) {
    out.timestamp = *canonical;
  } else {
    fail("timestamp", "'" + run.timestamp + "' is not an ISO-8601 UTC time");
  }
  return out;
}

std::int64_t insert(sqlite::Connection& c, const NetworkRunRecord& r) {
  {
    sqlite::Statement existing(c, "SELECT 1 FROM network_runs WHERE run_uid = ? AND workload_key = ? AND impl = ?");
    existing.bind(1, r.run_uid).bind(2, r.workload_key).bind(3, r.impl);
    if (existing.step())
      throw std::invalid_argument("invalid network run: run " + r.run_uid + " already has a '" + r.impl +
                                  "' timing of layer '" + r.workload_key + "'");
  }
  sqlite::Statement s(c,
                      "INSERT INTO network_runs (run_uid, measured_at, target_key, network, workload_key, impl,"
                      " config_key, median_ns, gops, cache, low_ns, high_ns, repetitions, waiting_share, retimed,"
                      " disturbed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, r.run_uid).bind(2, r.timestamp).bind(3, r.target_key).bind(4, r.network).bind(5, r.workload_key);
  s.bind(6, r.impl).bind(7, r.config_key).bind(8, r.median_ns).bind(9, r.gops).bind(10, r.cache);
  s.bind(11, r.low_ns).bind(12, r.high_ns).bind(13, r.repetitions).bind(14, r.waiting_share).bind(15, r.retimed);
  if (r.disturbed) {
    s.bind(16, std::int64_t{*r.disturbed ? 1 : 0});
  } else {
    s.bind_null(16);
  }
  s.run();
  return sqlite3_last_insert_rowid(c.get());
}

}  // namespace

std::string new_run_uid() {
  std::random_device device;
  std::mt19937_64 mix((static_cast<std::uint64_t>(device()) << 32) ^ device());
  return hex64(mix()) + hex64(mix());
}

std::int64_t add_network_run(TuningDb& db, const NetworkRunRecord& run) {
  if (db.read_only()) throw DbError(DbError::Kind::io, db.path() + ": opened read-only");
  const NetworkRunRecord row = checked(db, run);
  sqlite::Connection c = connect_to(db);
  sqlite::WriteTransaction transaction(c);
  const std::int64_t id = insert(c, row);
  transaction.commit();
  return id;
}

void add_network_runs(TuningDb& db, const std::vector<NetworkRunRecord>& runs) {
  if (db.read_only()) throw DbError(DbError::Kind::io, db.path() + ": opened read-only");
  std::vector<NetworkRunRecord> rows;
  rows.reserve(runs.size());
  for (const auto& run : runs) rows.push_back(checked(db, run));
  sqlite::Connection c = connect_to(db);
  sqlite::WriteTransaction transaction(c);
  for (const auto& row : rows) insert(c, row);
  transaction.commit();
}

std::vector<NetworkRunRecord> network_runs(const TuningDb& db, const NetworkRunFilter& filter) {
  // A database of an older schema opened read-only is read as it is: version 1 has no runs,
  // version 2 no record of how they were measured (the values its rows get when migrated).
  if (db.schema_version() < 2) return {};
  std::string sql =
      std::string("SELECT id, run_uid, measured_at, target_key, network, workload_key, impl, config_key, median_ns,"
                  " gops, ") +
      (db.schema_version() < 3 ? "'', NULL, NULL, NULL, NULL, NULL, NULL"
                               : "cache, low_ns, high_ns, repetitions, waiting_share, retimed, disturbed") +
      " FROM network_runs WHERE 1";
  std::vector<std::string> values;
  auto add = [&](const char* column, const std::optional<std::string>& value) {
    if (!value) return;
    sql += std::string(" AND ") + column + " = ?";
    values.push_back(*value);
  };
  add("run_uid", filter.run_uid);
  add("target_key", filter.target_key);
  add("network", filter.network);
  add("workload_key", filter.workload_key);
  add("impl", filter.impl);
  sql += " ORDER BY id";

  sqlite::Connection c = connect_to(db);
  sqlite::Statement s(c, sql);
  for (std::size_t i = 0; i < values.size(); ++i) s.bind(static_cast<int>(i) + 1, values[i]);
  std::vector<NetworkRunRecord> out;
  while (s.step()) {
    NetworkRunRecord r;
    r.id = s.column_int(0);
    r.run_uid = s.column_text(1);
    r.timestamp = s.column_text(2);
    r.target_key = s.column_text(3);
    r.network = s.column_text(4);
    r.workload_key = s.column_text(5);
    r.impl = s.column_text(6);
    r.config_key = s.column_text(7);
    r.median_ns = s.column_double(8);
    r.gops = s.column_double(9);
    r.cache = s.column_text(10);
    r.low_ns = s.column_optional_double(11);
    r.high_ns = s.column_optional_double(12);
    r.repetitions = s.column_optional_int(13);
    r.waiting_share = s.column_optional_double(14);
    r.retimed = s.column_optional_int(15);
    if (const auto disturbed = s.column_optional_int(16)) r.disturbed = *disturbed != 0;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace qtune::records
