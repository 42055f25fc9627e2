#include "schema.h"

namespace qtune::records::schema {

namespace {

// Version 1: the first schema.
//  - targets / workloads / configs: one row per key, with summary columns for queries.
//  - sessions: one row per `qtune tune` run; uid identifies it across merged files.
//  - measurements: every try, errors included. The UNIQUE key (workload, target, config,
//    timestamp, fingerprint of the results) makes importing or merging the same data twice a no-op.
//  - measurements_best serves "fastest correct config for (workload, target)" from the index.
void create_version_1(sqlite::Connection& c) {
  c.exec(R"sql(
CREATE TABLE targets (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE CHECK (key <> ''),
  arch TEXT NOT NULL DEFAULT '',
  cpu TEXT NOT NULL DEFAULT ''
);
CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE CHECK (key <> ''),
  op TEXT NOT NULL DEFAULT '',
  gops REAL CHECK (gops IS NULL OR gops >= 0),
  description TEXT NOT NULL DEFAULT ''
);
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE CHECK (key <> ''),
  hash TEXT NOT NULL
);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  started_at TEXT NOT NULL,
  ended_at TEXT NOT NULL DEFAULT '',
  command_line TEXT NOT NULL DEFAULT '',
  strategy TEXT NOT NULL DEFAULT '',
  seed TEXT,
  target_id INTEGER REFERENCES targets(id),
  qtune_version TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'failed'))
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  session_id INTEGER REFERENCES sessions(id),
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  target_id INTEGER NOT NULL REFERENCES targets(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  median_ns REAL CHECK (median_ns IS NULL OR median_ns >= 0),
  min_ns REAL,
  max_ns REAL,
  mean_ns REAL,
  stddev_ns REAL,
  cv REAL,
  repetitions INTEGER,
  iterations INTEGER,
  gops REAL,
  error_kind TEXT NOT NULL DEFAULT '',
  error_message TEXT NOT NULL DEFAULT '',
  settings TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL,
  qtune_version TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL CHECK (source IN ('measured', 'imported')),
  fingerprint TEXT NOT NULL,
  CHECK (error_kind <> '' OR median_ns IS NOT NULL),
  UNIQUE (workload_id, target_id, config_id, measured_at, fingerprint)
);
CREATE INDEX measurements_best ON measurements (workload_id, target_id, error_kind, median_ns);
CREATE INDEX measurements_target ON measurements (target_id);
CREATE INDEX measurements_session ON measurements (session_id);
)sql");
}

// Version 2: whole-network timings of `qtune run` (tuned / default / oneDNN per layer), read by
// reports. Keys are stored as text: the rows describe runs, not search results, and never join
// the tuning tables. One timing per (run, layer, implementation).
void add_network_runs_version_2(sqlite::Connection& c) {
  c.exec(R"sql(
CREATE TABLE network_runs (
  id INTEGER PRIMARY KEY,
  run_uid TEXT NOT NULL CHECK (run_uid <> ''),
  measured_at TEXT NOT NULL,
  target_key TEXT NOT NULL CHECK (target_key <> ''),
  network TEXT NOT NULL DEFAULT '',
  workload_key TEXT NOT NULL CHECK (workload_key <> ''),
  impl TEXT NOT NULL CHECK (impl IN ('tuned', 'default', 'onednn')),
  config_key TEXT NOT NULL DEFAULT '',
  median_ns REAL NOT NULL CHECK (median_ns > 0),
  gops REAL NOT NULL CHECK (gops >= 0),
  UNIQUE (run_uid, workload_key, impl)
);
CREATE INDEX network_runs_layer ON network_runs (target_key, workload_key, impl);
)sql");
}

// Version 3: how each `qtune run` timing was measured, so that reports compare like with like and
// can say faster / same / slower by the rule of the run (docs/measurement-protocol.md):
//  - cache: the run's --cache, 'warm' or 'cold'; '' in rows of version 2, which did not record it
//    (a version-2 qtune could run either way, so no state is assumed for them);
//  - low_ns / high_ns / repetitions: the quartiles of the per-call times and how many repetitions
//    they come from; NULL in rows of version 2;
//  - waiting_share / retimed / disturbed: the layer's disturbance (qtune/evaluation/undisturbed_timing.h);
//    NULL in rows of version 2 and where the kernel keeps no scheduler statistics (waiting_share).
// Columns are added, never rewritten: every row of version 2 keeps its values.
void add_run_conditions_version_3(sqlite::Connection& c) {
  c.exec(R"sql(
ALTER TABLE network_runs ADD COLUMN cache TEXT NOT NULL DEFAULT '' CHECK (cache IN ('', 'warm', 'cold'));
ALTER TABLE network_runs ADD COLUMN low_ns REAL CHECK (low_ns IS NULL OR low_ns >= 0);
ALTER TABLE network_runs ADD COLUMN high_ns REAL CHECK (high_ns IS NULL OR high_ns >= 0);
ALTER TABLE network_runs ADD COLUMN repetitions INTEGER CHECK (repetitions IS NULL OR repetitions > 0);
ALTER TABLE network_runs ADD COLUMN waiting_share REAL CHECK (waiting_share IS NULL OR waiting_share >= 0);
ALTER TABLE network_runs ADD COLUMN retimed INTEGER CHECK (retimed IS NULL OR retimed >= 0);
ALTER TABLE network_runs ADD COLUMN disturbed INTEGER CHECK (disturbed IS NULL OR disturbed IN (0, 1));
)sql");
}

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = {
      {1, "initial schema", create_version_1, "measurements"},
      {2, "network_runs: timings of qtune run", add_network_runs_version_2, "network_runs"},
      {3, "network_runs: cache state, quartiles and disturbance of each timing", add_run_conditions_version_3,
       "network_runs", "cache"},
  };
  return list;
}

int latest_version() { return migrations().back().to_version; }

void migrate(sqlite::Connection& connection, int from_version) {
  for (const auto& m : migrations()) {
    if (m.to_version <= from_version) continue;
    m.apply(connection);
    connection.exec("PRAGMA user_version = " + std::to_string(m.to_version));
  }
  connection.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
}

}  // namespace qtune::records::schema
