#include "qtune/records/tuning_db.h"

#include <sys/stat.h>

#include <map>
#include <random>
#include <stdexcept>
#include <variant>

#include "database_file.h"
#include "fingerprint.h"
#include "qtune/json_input/bounded_parse.h"
#include "qtune/records/best_selection.h"
#include "qtune/records/record_check.h"
#include "qtune/records/timestamp.h"
#include "session_lock.h"
#include "sqlite_handle.h"

namespace qtune::records {

namespace {

using Binding = std::variant<std::int64_t, std::string>;

// WHERE clause over measurements m joined with workloads w, targets t and configs c.
struct Where {
  std::string sql = "1";
  std::vector<Binding> values;

  void add(const std::string& condition, Binding value) {
    sql += " AND " + condition;
    values.push_back(std::move(value));
  }
};

Where where_of(const MeasurementFilter& f) {
  Where w;
  if (f.workload_key) w.add("w.key = ?", *f.workload_key);
  if (f.target_key) w.add("t.key = ?", *f.target_key);
  if (f.config_key) w.add("c.key = ?", *f.config_key);
  if (f.op) w.add("w.op = ?", *f.op);
  if (f.shape_contains) {
    w.add("(instr(w.key, ?) > 0", *f.shape_contains);
    w.sql += " OR instr(w.description, ?) > 0)";
    w.values.push_back(*f.shape_contains);
  }
  if (f.session_id) w.add("m.session_id = ?", *f.session_id);
  if (f.source) w.add("m.source = ?", to_string(*f.source));
  if (f.correct_only) w.sql += " AND m.error_kind = ''";
  return w;
}

void bind_all(sqlite::Statement& s, const std::vector<Binding>& values, int first = 1) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int index = first + static_cast<int>(i);
    std::visit([&](const auto& v) { s.bind(index, v); }, values[i]);
  }
}

constexpr const char* kJoins =
    " FROM measurements m JOIN workloads w ON w.id = m.workload_id JOIN targets t ON t.id = m.target_id"
    " JOIN configs c ON c.id = m.config_id ";

// The columns read_measurement() expects, in order.
constexpr const char* kMeasurementColumns =
    "m.id, m.session_id, w.key, t.key, c.key, m.median_ns, m.min_ns, m.max_ns, m.mean_ns, m.stddev_ns, m.cv,"
    " m.repetitions, m.iterations, m.gops, m.error_kind, m.error_message, m.settings, m.measured_at,"
    " m.qtune_version, m.source";
constexpr int kMeasurementColumnCount = 20;
// The list and the count (read_measurement's column indices 0..19) change together.
constexpr int count_columns(const char* list) {
  int commas = 0;
  for (; *list != '\0'; ++list) commas += *list == ',' ? 1 : 0;
  return commas + 1;
}
static_assert(count_columns(kMeasurementColumns) == kMeasurementColumnCount);

MeasurementRecord read_measurement(const sqlite::Statement& s) {
  MeasurementRecord r;
  r.id = s.column_int(0);
  r.session_id = s.column_optional_int(1);
  r.workload_key = s.column_text(2);
  r.target_key = s.column_text(3);
  r.config_key = s.column_text(4);
  if (!s.is_null(5)) {
    TimingStats st;
    st.median_ns = s.column_double(5);
    st.min_ns = s.column_double(6);
    st.max_ns = s.column_double(7);
    st.mean_ns = s.column_double(8);
    st.stddev_ns = s.column_double(9);
    st.cv = s.column_double(10);
    st.repetitions = s.column_int(11);
    st.iterations = s.column_int(12);
    st.gops = s.column_double(13);
    r.stats = st;
  }
  r.error_kind = s.column_text(14);
  r.error_message = s.column_text(15);
  const std::string settings = s.column_text(16);
  if (!settings.empty()) {
    try {
      r.settings = json_input::parse_bounded(settings);
    } catch (const json_input::JsonInputError& e) {
      // Written by hand or by another program: say which row instead of failing deep in a report.
      throw DbError(DbError::Kind::corrupt, "measurement " + std::to_string(r.id) + ": the settings column is not "
                                            "readable JSON (" + e.what() + ")");
    }
  }
  r.timestamp = s.column_text(17);
  r.qtune_version = s.column_text(18);
  r.source = parse_measurement_source(s.column_text(19));
  return r;
}

std::string describe_problems(const std::vector<FieldProblem>& problems) {
  std::string text;
  for (const auto& p : problems) {
    if (!text.empty()) text += "; ";
    text += p.field.empty() ? p.message : "field '" + p.field + "': " + p.message;
  }
  return text;
}

std::string new_session_uid() {
  std::random_device device;
  std::uniform_int_distribution<std::uint64_t> bits;
  std::mt19937_64 mix(device() ^ (static_cast<std::uint64_t>(device()) << 32));
  return hex64(bits(mix)) + hex64(bits(mix));
}

}  // namespace

struct TuningDb::Impl {
  sqlite::Connection connection;
  std::string path;
  OpenMode mode = OpenMode::read_only;
  int schema_version = 0;
  KeyValidators validators;
  std::unique_ptr<SessionLock> session_lock;  // held from this process's first session on

  void require_writable() const {
    if (mode == OpenMode::read_only) throw DbError(DbError::Kind::io, path + ": opened read-only");
  }

  std::optional<std::int64_t> find_id(const char* table, const std::string& key) {
    sqlite::Statement s(connection, std::string("SELECT id FROM ") + table + " WHERE key = ?");
    s.bind(1, key);
    if (!s.step()) return std::nullopt;
    return s.column_int(0);
  }

  // Rows written before a knob existed keep their key as recorded; a reader sees the key this
  // build spells (the validators' canonical form), so that such a row and a newer one of the same
  // configuration are one configuration (best selection, history). A key the validators reject
  // (a knob this build lacks) is left as it is, for the reader to skip or report.
  mutable std::map<std::pair<std::string, std::string>, std::string> canonical_configs;
  void canonicalize_config(MeasurementRecord& r) const {
    if (!validators.config) return;
    auto [it, inserted] = canonical_configs.try_emplace({default_workload_summary(r.workload_key).op, r.config_key});
    if (inserted) {
      try {
        it->second = validators.config(r.workload_key, r.config_key);
      } catch (const std::exception&) {
        it->second = r.config_key;
      }
    }
    r.config_key = it->second;
  }

  // What a new workloads row says of its key: the validators' description where they accept the
  // key, else what the key alone tells. Keys being added were checked already (prepared); a
  // merge copies rows as another qtune recorded them, keys this build rejects included.
  WorkloadSummary describe_workload(const std::string& key) const {
    WorkloadSummary summary = default_workload_summary(key);
    if (validators.workload) {
      try {
        summary = validators.workload(key);
      } catch (const std::exception&) {
      }
    }
    if (summary.op.empty()) summary.op = default_workload_summary(key).op;
    return summary;
  }

  std::int64_t workload_id(const std::string& key) {
    if (auto id = find_id("workloads", key)) return *id;
    const WorkloadSummary summary = describe_workload(key);
    sqlite::Statement s(connection, "INSERT INTO workloads (key, op, gops, description) VALUES (?, ?, ?, ?)");
    s.bind(1, key).bind(2, summary.op).bind(3, summary.gops).bind(4, summary.description).run();
    return sqlite3_last_insert_rowid(connection.get());
  }

  // Target keys are checked before they get here (prepared, begin_session); a merge copies them.
  std::int64_t target_id(const std::string& key) {
    if (auto id = find_id("targets", key)) return *id;
    const TargetSummary summary = default_target_summary(key);
    sqlite::Statement s(connection, "INSERT INTO targets (key, arch, cpu) VALUES (?, ?, ?)");
    s.bind(1, key).bind(2, summary.arch).bind(3, summary.cpu).run();
    return sqlite3_last_insert_rowid(connection.get());
  }

  std::int64_t config_id(const std::string& key) {
    if (auto id = find_id("configs", key)) return *id;
    sqlite::Statement s(connection, "INSERT INTO configs (key, hash) VALUES (?, ?)");
    s.bind(1, key).bind(2, hex64(fnv1a64(key))).run();
    return sqlite3_last_insert_rowid(connection.get());
  }

  // Checks the record (and, through the validators, its keys) and returns it with a canonical
  // timestamp; std::invalid_argument naming every problem otherwise.
  MeasurementRecord prepared(const MeasurementRecord& record) const {
    std::vector<FieldProblem> problems = check_record(record);
    auto check_key = [&](const char* field, auto&& validate) {
      try {
        validate();
      } catch (const std::exception& e) {
        problems.push_back({field, e.what()});
      }
    };
    if (problems.empty()) {
      if (validators.workload) check_key("workload", [&] { validators.workload(record.workload_key); });
      if (validators.target) check_key("target", [&] { validators.target(record.target_key); });
    }
    MeasurementRecord out = record;
    if (validators.config && problems.empty())
      check_key("config", [&] { out.config_key = validators.config(record.workload_key, record.config_key); });
    if (!problems.empty()) throw std::invalid_argument("invalid measurement: " + describe_problems(problems));
    out.timestamp = record.timestamp.empty() ? utc_now_iso8601() : *canonical_timestamp(record.timestamp);
    return out;
  }

  // Inserts inside the caller's transaction; returns {id, whether it was new}.
  std::pair<std::int64_t, bool> insert(const MeasurementRecord& r, std::optional<std::int64_t> session_id) {
    if (session_id) {
      sqlite::Statement s(connection, "SELECT 1 FROM sessions WHERE id = ?");
      s.bind(1, *session_id);
      if (!s.step())
        throw std::invalid_argument("invalid measurement: no session " + std::to_string(*session_id) + " in " + path);
    }
    const std::int64_t w = workload_id(r.workload_key), t = target_id(r.target_key), c = config_id(r.config_key);
    const std::string fingerprint = measurement_fingerprint(r);
    sqlite::Statement s(connection,
                        "INSERT OR IGNORE INTO measurements (session_id, workload_id, target_id, config_id, median_ns,"
                        " min_ns, max_ns, mean_ns, stddev_ns, cv, repetitions, iterations, gops, error_kind,"
                        " error_message, settings, measured_at, qtune_version, source, fingerprint)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, session_id).bind(2, w).bind(3, t).bind(4, c);
    if (r.stats) {
      const auto& st = *r.stats;
      s.bind(5, st.median_ns).bind(6, st.min_ns).bind(7, st.max_ns).bind(8, st.mean_ns).bind(9, st.stddev_ns);
      s.bind(10, st.cv).bind(11, st.repetitions).bind(12, st.iterations).bind(13, st.gops);
    } else {
      for (int i = 5; i <= 13; ++i) s.bind_null(i);
    }
    s.bind(14, r.error_kind).bind(15, r.error_message);
    s.bind(16, r.settings.is_null() ? std::string() : r.settings.dump());
    s.bind(17, r.timestamp).bind(18, r.qtune_version).bind(19, to_string(r.source)).bind(20, fingerprint);
    if (s.run() == 1) return {sqlite3_last_insert_rowid(connection.get()), true};
    sqlite::Statement existing(connection,
                               "SELECT id FROM measurements WHERE workload_id = ? AND target_id = ? AND config_id = ?"
                               " AND measured_at = ? AND fingerprint = ?");
    existing.bind(1, w).bind(2, t).bind(3, c).bind(4, r.timestamp).bind(5, fingerprint);
    if (!existing.step()) throw DbError(DbError::Kind::io, path + ": measurement neither inserted nor present");
    return {existing.column_int(0), false};
  }

  std::vector<SessionRecord> query_sessions(const std::string& condition, std::optional<std::int64_t> id) {
    sqlite::Statement s(connection,
                        "SELECT s.id, s.uid, s.command_line, s.strategy, s.seed, COALESCE(t.key, ''), s.qtune_version,"
                        " s.started_at, s.ended_at, s.status,"
                        " (SELECT COUNT(*) FROM measurements m WHERE m.session_id = s.id)"
                        " FROM sessions s LEFT JOIN targets t ON t.id = s.target_id " +
                            condition + " ORDER BY s.id");
    if (id) s.bind(1, *id);
    std::vector<SessionRecord> out;
    while (s.step()) {
      SessionRecord r;
      r.id = s.column_int(0);
      r.uid = s.column_text(1);
      r.info.command_line = s.column_text(2);
      r.info.strategy = s.column_text(3);
      if (!s.is_null(4)) r.info.seed = std::stoull(s.column_text(4));
      r.info.target_key = s.column_text(5);
      r.info.qtune_version = s.column_text(6);
      r.started_at = s.column_text(7);
      r.ended_at = s.column_text(8);
      r.status = parse_session_status(s.column_text(9));
      r.measurements = s.column_int(10);
      out.push_back(std::move(r));
    }
    return out;
  }
};

TuningDb::TuningDb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TuningDb::TuningDb(TuningDb&&) noexcept = default;
TuningDb& TuningDb::operator=(TuningDb&&) noexcept = default;
TuningDb::~TuningDb() = default;

TuningDb TuningDb::open(const std::string& path, OpenMode mode, KeyValidators validators) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (mode != OpenMode::create)
      throw DbError(DbError::Kind::not_found, path + ": no such database (create it with `qtune tune --db " + path + "`)");
    create_database_file(path);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->mode = mode;
  impl->validators = std::move(validators);
  impl->connection = connect(path, mode, impl->schema_version);
  return TuningDb(std::move(impl));
}

const std::string& TuningDb::path() const { return impl_->path; }
bool TuningDb::read_only() const { return impl_->mode == OpenMode::read_only; }
int TuningDb::schema_version() const { return impl_->schema_version; }
const KeyValidators& TuningDb::validators() const { return impl_->validators; }

std::int64_t TuningDb::begin_session(const SessionInfo& info) {
  impl_->require_writable();
  if (!info.target_key.empty() && impl_->validators.target) {
    try {
      impl_->validators.target(info.target_key);
    } catch (const std::exception& e) {
      throw std::invalid_argument(std::string("invalid session: field 'target': ") + e.what());
    }
  }
  if (!impl_->session_lock) {
    // Sessions left 'running' by killed processes end as 'interrupted' once no session is alive
    // (session_lock.h); done before this session's row exists, so it can never be marked itself.
    impl_->session_lock = std::make_unique<SessionLock>(impl_->path);
    if (impl_->session_lock->no_session_alive()) {
      sqlite::WriteTransaction transaction(impl_->connection);
      impl_->connection.exec("UPDATE sessions SET status = 'interrupted' WHERE status = 'running'");
      transaction.commit();
    }
    impl_->session_lock->hold_shared();
  }
  sqlite::WriteTransaction transaction(impl_->connection);
  std::optional<std::int64_t> target;
  if (!info.target_key.empty()) target = impl_->target_id(info.target_key);
  sqlite::Statement s(impl_->connection,
                      "INSERT INTO sessions (uid, started_at, command_line, strategy, seed, target_id, qtune_version,"
                      " status) VALUES (?, ?, ?, ?, ?, ?, ?, 'running')");
  s.bind(1, new_session_uid()).bind(2, utc_now_iso8601()).bind(3, info.command_line).bind(4, info.strategy);
  if (info.seed) {
    s.bind(5, std::to_string(*info.seed));
  } else {
    s.bind_null(5);
  }
  s.bind(6, target).bind(7, info.qtune_version).run();
  const std::int64_t id = sqlite3_last_insert_rowid(impl_->connection.get());
  transaction.commit();
  return id;
}

void TuningDb::end_session(std::int64_t session_id, SessionStatus status) {
  impl_->require_writable();
  sqlite::WriteTransaction transaction(impl_->connection);
  sqlite::Statement s(impl_->connection, "UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?");
  if (s.bind(1, utc_now_iso8601()).bind(2, to_string(status)).bind(3, session_id).run() != 1)
    throw std::invalid_argument("no session " + std::to_string(session_id) + " in " + impl_->path);
  transaction.commit();
}

std::int64_t TuningDb::add_measurement(const MeasurementRecord& record) {
  impl_->require_writable();
  const MeasurementRecord r = impl_->prepared(record);
  sqlite::WriteTransaction transaction(impl_->connection);
  const auto [id, added] = impl_->insert(r, r.session_id);
  transaction.commit();
  return id;
}

TransferCounts TuningDb::add_measurements(const std::vector<MeasurementRecord>& records) {
  impl_->require_writable();
  std::vector<MeasurementRecord> ready;
  ready.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    try {
      ready.push_back(impl_->prepared(records[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("record " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  TransferCounts counts;
  sqlite::WriteTransaction transaction(impl_->connection);
  for (const auto& r : ready) {
    (impl_->insert(r, r.session_id).second ? counts.added : counts.already_present)++;
  }
  transaction.commit();
  return counts;
}

TransferCounts TuningDb::merge_from(const std::string& other_path) {
  impl_->require_writable();
  // Read the other file completely first (read-only, checked like any open), then write ours in
  // one transaction: a failure leaves this database as it was.
  std::vector<SessionRecord> sessions;
  std::vector<MeasurementRecord> measurements;
  {
    // Opaque keys: the rows are copied exactly as recorded (their fingerprints too), never respelled.
    TuningDb other = TuningDb::open(other_path, OpenMode::read_only, opaque_keys());
    sqlite::ReadTransaction snapshot(other.impl_->connection);
    sessions = other.sessions();
    measurements = other.measurements();
  }
  TransferCounts counts;
  sqlite::WriteTransaction transaction(impl_->connection);
  std::map<std::int64_t, std::int64_t> session_ids;  // other's id -> ours
  for (const auto& s : sessions) {
    std::optional<std::int64_t> target;
    if (!s.info.target_key.empty()) target = impl_->target_id(s.info.target_key);
    sqlite::Statement insert(impl_->connection,
                             "INSERT OR IGNORE INTO sessions (uid, started_at, ended_at, command_line, strategy, seed,"
                             " target_id, qtune_version, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, s.uid).bind(2, s.started_at).bind(3, s.ended_at).bind(4, s.info.command_line);
    insert.bind(5, s.info.strategy);
    if (s.info.seed) {
      insert.bind(6, std::to_string(*s.info.seed));
    } else {
      insert.bind_null(6);
    }
    insert.bind(7, target).bind(8, s.info.qtune_version).bind(9, to_string(s.status));
    if (insert.run() == 1) ++counts.sessions_added;
    sqlite::Statement find(impl_->connection, "SELECT id FROM sessions WHERE uid = ?");
    find.bind(1, s.uid);
    if (!find.step()) throw DbError(DbError::Kind::io, impl_->path + ": merged session vanished");
    session_ids[s.id] = find.column_int(0);
  }
  for (const auto& m : measurements) {
    std::optional<std::int64_t> session;
    if (m.session_id) session = session_ids.at(*m.session_id);
    (impl_->insert(m, session).second ? counts.added : counts.already_present)++;
  }
  transaction.commit();
  return counts;
}

std::vector<BestRecord> TuningDb::all_best(const MeasurementFilter& filter) const {
  MeasurementFilter correct = filter;
  correct.correct_only = true;
  sqlite::Statement counts(impl_->connection,
                           "SELECT COUNT(*), COALESCE(SUM(m.error_kind <> ''), 0) FROM measurements m"
                           " JOIN workloads w ON w.id = m.workload_id JOIN targets t ON t.id = m.target_id"
                           " WHERE w.key = ? AND t.key = ?");
  std::vector<BestRecord> out;
  for (MeasurementRecord& best : select_best(measurements(correct))) {
    counts.reset();
    counts.bind(1, best.workload_key).bind(2, best.target_key);
    BestRecord b;
    if (counts.step()) {
      b.trials = counts.column_int(0);
      b.failures = counts.column_int(1);
    }
    b.measurement = std::move(best);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<MeasurementRecord> TuningDb::measurements(const MeasurementFilter& filter) const {
  const Where where = where_of(filter);
  sqlite::Statement s(impl_->connection,
                      std::string("SELECT ") + kMeasurementColumns + kJoins + "WHERE " + where.sql + " ORDER BY m.id");
  bind_all(s, where.values);
  std::vector<MeasurementRecord> out;
  while (s.step()) {
    out.push_back(read_measurement(s));
    impl_->canonicalize_config(out.back());
  }
  return out;
}

bool TuningDb::has_measured(const std::string& workload_key, const std::string& target_key,
                            const std::string& config_key) const {
  sqlite::Statement s(impl_->connection,
                      std::string("SELECT 1") + kJoins + "WHERE w.key = ? AND t.key = ? AND c.key = ? LIMIT 1");
  s.bind(1, workload_key).bind(2, target_key).bind(3, config_key);
  return s.step();
}

std::vector<std::string> TuningDb::measured_configs(const std::string& workload_key,
                                                    const std::string& target_key) const {
  sqlite::Statement s(impl_->connection,
                      std::string("SELECT DISTINCT c.key") + kJoins + "WHERE w.key = ? AND t.key = ? ORDER BY c.key");
  s.bind(1, workload_key).bind(2, target_key);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::vector<TargetSummary> TuningDb::targets() const {
  sqlite::Statement s(impl_->connection,
                      "SELECT t.key, t.arch, t.cpu, (SELECT COUNT(*) FROM measurements m WHERE m.target_id = t.id)"
                      " FROM targets t ORDER BY t.key");
  std::vector<TargetSummary> out;
  while (s.step()) out.push_back({s.column_text(0), s.column_text(1), s.column_text(2), s.column_int(3)});
  return out;
}

std::vector<WorkloadSummary> TuningDb::workloads(const MeasurementFilter& filter) const {
  const Where where = where_of(filter);
  sqlite::Statement s(impl_->connection, std::string("SELECT w.key, w.op, w.gops, w.description, COUNT(*)") + kJoins +
                                             "WHERE " + where.sql + " GROUP BY w.id ORDER BY w.key");
  bind_all(s, where.values);
  std::vector<WorkloadSummary> out;
  while (s.step())
    out.push_back({s.column_text(0), s.column_text(1), s.column_optional_double(2), s.column_text(3), s.column_int(4)});
  return out;
}

std::vector<SessionRecord> TuningDb::sessions() const { return impl_->query_sessions("", std::nullopt); }

std::optional<SessionRecord> TuningDb::session(std::int64_t session_id) const {
  auto found = impl_->query_sessions("WHERE s.id = ?", session_id);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<TrialPoint> TuningDb::tuning_curve(std::int64_t session_id,
                                               const std::optional<std::string>& workload_key) const {
  MeasurementFilter filter;
  filter.session_id = session_id;
  std::vector<TrialPoint> out;
  std::map<std::string, double> best_so_far;
  std::int64_t trial = 0;
  for (const auto& m : measurements(filter)) {
    ++trial;
    if (m.correct()) {
      auto [it, inserted] = best_so_far.emplace(m.workload_key, m.stats->median_ns);
      if (!inserted && m.stats->median_ns < it->second) it->second = m.stats->median_ns;
    }
    if (workload_key && m.workload_key != *workload_key) continue;
    TrialPoint p;
    p.trial = trial;
    p.measurement_id = m.id;
    p.workload_key = m.workload_key;
    p.config_key = m.config_key;
    if (m.stats) p.median_ns = m.stats->median_ns;
    p.error_kind = m.error_kind;
    if (auto it = best_so_far.find(m.workload_key); it != best_so_far.end()) p.best_so_far_ns = it->second;
    out.push_back(std::move(p));
  }
  return out;
}

std::string TuningDb::integrity_check() const {
  sqlite::Statement s(impl_->connection, "PRAGMA integrity_check");
  std::string result;
  while (s.step()) {
    if (!result.empty()) result += "\n";
    result += s.column_text(0);
  }
  return result;
}

}  // namespace qtune::records
