// Whole-network timings made by `qtune run`: every layer of a network timed with its tuned
// configuration, with the untuned default, and with oneDNN, stored next to the tuning results so
// that reports can show what tuning won against a production library on the same machine.
//
// These rows live in the network_runs table (schema version 2; version 3 added how each timing was
// measured: cache state, quartiles, disturbance). They are not measurements of the
// search: the tuner never reads them, and merges/imports of tuning results leave them alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qtune/records/tuning_db.h"

namespace qtune::records {

// What ran the layer.
inline constexpr const char* kImplTuned = "tuned";      // qtune with the best configuration found
inline constexpr const char* kImplDefault = "default";  // qtune with the untuned default configuration
inline constexpr const char* kImplOneDnn = "onednn";    // oneDNN's int8 primitive

// One layer of one `qtune run`.
struct NetworkRunRecord {
  std::int64_t id = 0;      // assigned by the database
  std::string run_uid;      // shared by every row of one `qtune run` invocation (see new_run_uid)
  std::string timestamp;    // ISO-8601 UTC; empty = now at insert
  std::string target_key;
  std::string network;      // the workloads file or network name the run timed; may be empty
  std::string workload_key; // the layer
  std::string impl;         // kImplTuned, kImplDefault or kImplOneDnn
  std::string config_key;   // the qtune configuration; empty for oneDNN
  double median_ns = 0;     // per run of the layer
  double gops = 0;          // throughput at the median, 1e9 ops per second
  // How the timing was measured (schema version 3; rows of version 2 read back with the defaults
  // below, which say "not recorded"): docs/measurement-protocol.md.
  std::string cache;                     // the run's --cache, "warm" or "cold"; "" = not recorded
  std::optional<double> low_ns, high_ns;  // first and third quartile of the per-call times
  std::optional<std::int64_t> repetitions;
  std::optional<double> waiting_share;   // share of the timing the process waited for a CPU
  std::optional<std::int64_t> retimed;   // attempts thrown away as disturbed
  std::optional<bool> disturbed;         // the kept timing is disturbed too
};

// Restricts network_runs(); unset fields match everything.
struct NetworkRunFilter {
  std::optional<std::string> run_uid;
  std::optional<std::string> target_key;
  std::optional<std::string> network;
  std::optional<std::string> workload_key;
  std::optional<std::string> impl;
};

// A fresh globally unique id for the rows of one run.
std::string new_run_uid();

// Stores one row and returns its id. std::invalid_argument naming the field when the row is
// inconsistent (empty uid or keys, unknown impl, non-positive or non-finite time, a config key
// missing for qtune implementations, a cache state other than warm or cold, quartiles that do not
// enclose the median, fewer than one repetition, a negative waiting share or retime count); the
// database's validators check the target and workload keys.
std::int64_t add_network_run(TuningDb& db, const NetworkRunRecord& run);

// Stores all rows in one transaction (all or nothing); every row is checked before any is written.
void add_network_runs(TuningDb& db, const std::vector<NetworkRunRecord>& runs);

// Matching rows in insertion order.
std::vector<NetworkRunRecord> network_runs(const TuningDb& db, const NetworkRunFilter& filter = {});

}  // namespace qtune::records
