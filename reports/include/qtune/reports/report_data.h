// What a report shows, gathered from the tuning database once: the renderers (HTML, Markdown,
// JSON) only format this, so the three formats always agree.
//
// Definitions used throughout:
//  - a layer's *untuned* result is the configuration of its first trial on the target: every tuning
//    session measures the layer's default configuration before searching (see tuner/session.h);
//  - its *tuned* result is records' best (best_selection.h); a configuration's timing is its
//    median measurement, for the untuned one too;
//  - *won by* compares the best of qtune's own kernels with the best library configuration
//    (algo=onednn, ...) of the layer, where both were measured (candidate_kinds.h);
//  - a trial is a configuration measured for the first time: measuring it again (a session
//    confirming its leaders) adds no trial;
//  - *oneDNN* (and the tuned / default timings of the same run) come from the latest `qtune run`
//    stored in network_runs for the layer on the target, with that run's cache state and verdicts
//    (faster / same / slower by the rule of qtune run: qtune/measure/timing_verdict.h);
//  - network times weigh each layer by how often it occurs (its count in the workloads file, 1
//    without one).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qtune/records/tuning_db.h"
#include "qtune/reports/candidate_kinds.h"
#include "qtune/search_space/workload.h"

namespace qtune::reports {

struct ReportOptions {
  // The target to report on. Empty: `preferred_target_key` when the database has measurements
  // for it (the CLI passes this machine's), else the target with the most measurements.
  std::string target_key;
  std::string preferred_target_key;
  // The network's layers (counts weigh the network time) and the file they came from; without
  // them, every workload measured on the target counts once.
  std::optional<WorkloadFile> workloads;
  std::string workloads_origin;
  // The layer of the heat map and fuse comparison: a workload key or a 1-based layer index.
  // Empty: the layer taking the most time.
  std::string focus_layer;
  std::size_t max_fuse_pairs = 40;  // the fuse chart shows the pairs of the fastest configurations
};

// A configuration's timing.
struct ConfigTiming {
  std::string config_key;
  double median_ns = 0;
  double gops = 0;
};

// The throughput of a timing that may be missing (a layer never tuned, or without a oneDNN row).
inline std::optional<double> gops_of(const std::optional<ConfigTiming>& t) {
  return t ? std::optional<double>(t->gops) : std::nullopt;
}

// One point of a tuning curve: after the `trial`-th measurement of the layer by the strategy,
// the best GOP/s so far (none while every trial so far failed).
struct CurvePoint {
  std::int64_t trial = 0;
  std::optional<double> best_gops;
};

struct TuningCurve {
  std::string strategy;               // session strategy: "grid", "random", "model"; "imported" without a session
  std::vector<std::int64_t> sessions; // the sessions whose measurements make the curve
  std::vector<CurvePoint> points;
};

struct LayerReport {
  std::size_t index = 0;     // 1-based position in the report
  std::string name;          // from the workloads file, else the workload's description
  std::string workload_key;
  std::string description;   // "gemm 784x128x1152"
  std::string op;
  int count = 1;
  std::optional<double> gop_per_run;  // operations of one run, 1e9

  std::int64_t trials = 0;    // configurations measured on the target, failed ones included
  std::int64_t failures = 0;
  std::string untuned_config;            // the first trial's configuration ("" when never measured)
  std::optional<ConfigTiming> untuned;   // its median timing; nullopt when not measured or it failed
  std::optional<ConfigTiming> tuned;
  std::string tuned_strategy;            // the strategy whose session found the best
  std::optional<KindMargin> kinds;       // qtune's kernels vs a library, where both were measured
  std::optional<std::int64_t> tuned_at_trial;  // its trial number on that strategy's curve

  std::optional<ConfigTiming> run_tuned, run_default, onednn;  // latest `qtune run`
  std::string run_uid;
  std::string run_cache;      // its --cache, "warm" or "cold"; "" = not recorded (stored before schema 3)
  bool run_disturbed = false;  // its timings of the layer stayed disturbed (a busy machine's)
  // Tuned against default and against oneDNN in that run: "faster", "same", "slower", or "-" where
  // the run stored no quartiles (before schema 3) or did not time the case.
  std::string run_vs_default = "-", run_vs_onednn = "-";

  std::vector<TuningCurve> curves;

  std::optional<double> speedup() const;  // untuned / tuned time
  // Count-weighted time of the layer in the network: tuned, else untuned; nullopt without either.
  std::optional<double> network_ns() const;
};

struct SessionReport {
  std::int64_t id = 0;
  std::string strategy;
  std::string status;
  std::string started_at;
  std::string ended_at;
  std::int64_t trials = 0;  // of the reported layers on the target
  std::int64_t failures = 0;
};

// Count-weighted network times.
struct NetworkTimes {
  std::size_t layers = 0;    // layers with both timings (the sums cover only those)
  double baseline_ns = 0;    // untuned, or oneDNN
  double tuned_ns = 0;
  double speedup() const { return tuned_ns > 0 ? baseline_ns / tuned_ns : 0; }
};

// The heat map of the focus layer: best GOP/s over the other knobs per (isa, tile).
struct KnobHeatMap {
  std::vector<std::string> isas;   // rows, in the knob's order
  std::vector<std::string> tiles;  // columns, in the knob's order
  std::vector<std::vector<std::optional<double>>> gops;  // [isa][tile]
  std::vector<std::vector<std::string>> best_config;     // [isa][tile], "" where unmeasured
  std::size_t configs_without_tile = 0;  // correct configurations with no tile knob (direct conv, ...)
};

// Two measured configurations of the focus layer that differ only in `fuse`.
struct FusePair {
  std::string shared_config;  // the configuration key without "fuse="
  double fused_gops = 0;
  double separate_gops = 0;
};

struct FuseEffect {
  std::vector<FusePair> pairs;  // fastest first, at most ReportOptions::max_fuse_pairs
  std::size_t total_pairs = 0;
  std::size_t fused_faster = 0;          // among all pairs
  std::optional<double> median_ratio;    // fused / separate GOP/s, over all pairs
};

struct FocusLayer {
  std::size_t layer = 0;  // index into ReportData::layers
  std::string chosen_by;  // "--layer" or "most time"
  KnobHeatMap heat_map;
  FuseEffect fuse;
};

struct ReportSummary {
  std::size_t layers = 0;        // in the report
  std::size_t layers_tuned = 0;  // with a correct measurement
  std::int64_t trials = 0;
  std::int64_t failures = 0;
  std::map<std::string, std::int64_t> failure_kinds;
  NetworkTimes untuned_vs_tuned;
  std::optional<NetworkTimes> onednn_vs_tuned;  // when `qtune run` timed oneDNN
};

struct ReportData {
  std::string database;
  std::string target_key;
  std::string target_cpu;
  std::string target_arch;
  std::vector<std::string> other_targets;  // in the database, not reported
  std::string network;                     // network name (workloads file), "" without one
  std::string workloads_origin;
  std::string generated_at;
  std::string qtune_version;
  std::vector<SessionReport> sessions;
  std::vector<LayerReport> layers;
  ReportSummary summary;
  std::optional<FocusLayer> focus;  // none when no layer has a correct measurement
};

// Sum of the layers' network_ns(): what each layer's share of the time is relative to.
double total_network_ns(const ReportData& data);

// Reads everything the report needs. std::invalid_argument when the target or the focus layer
// cannot be found (the message lists what exists); database errors propagate as DbError.
ReportData gather_report_data(const records::TuningDb& db, const ReportOptions& options);

}  // namespace qtune::reports
