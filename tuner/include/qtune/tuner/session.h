// A tuning session: the layers of a network tuned on this machine into the tuning database.
//
// After the search the leading configurations of every layer are confirmed by further
// measurements (SessionOptions::confirm_top); these do not count as trials.
//
// Identical layers are tuned once (workload key) and weigh by their count. The first trial of every
// layer measures its untuned default configuration, so the speedup is known. Rounds of trials go
// to layers as the task scheduler decides (count x time and how much a layer still improves). Every
// result is committed to the database as it completes, so a session can be stopped at any moment
// and the same session started again continues: a configuration already measured for a workload on
// this target is never measured again (unless `remeasure`), and trial targets count what the
// database already holds.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/measure.h"
#include "qtune/records/record_store.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/disturbance.h"
#include "qtune/tuner/model_strategy.h"
#include "qtune/tuner/strategy.h"

namespace qtune {

struct SessionOptions {
  StrategyKind strategy = StrategyKind::model;
  // Trial targets, counting the layer's measurements already in the database. Without either, each
  // layer's whole space is the target.
  std::optional<std::size_t> trials_per_layer;
  std::optional<std::size_t> total_trials;  // shared by all layers, allocated by the scheduler
  std::optional<double> time_budget_seconds;
  std::optional<std::size_t> early_stop;    // a layer ends after this many trials without a new best
  std::uint64_t seed = 1;
  bool remeasure = false;                   // ignore earlier measurements (they stay in the database)
  bool transfer = true;                     // model strategy: start from similar tuned shapes
  ModelStrategyOptions model;               // model strategy: exploration and its annealing
  std::size_t similar_workloads = 4;        // how many similar shapes to transfer from
  std::size_t round_size = 8;               // trials per scheduler round
  // When the search ends, each layer's leading configurations (this many, and the default) are
  // measured again, one after the other in turn, until each has confirm_samples successful
  // measurements; one that rises into the lead meanwhile is measured in turn with those before
  // it. A configuration's time is the median of its measurements (records/best_selection.h), so
  // on a shared machine no single disturbed or lucky timing picks the best. confirm_top = 0 turns
  // it off.
  std::size_t confirm_top = 3;
  std::size_t confirm_samples = 3;
  MeasureSettings measure = MeasureSettings::tuning();
  DisturbancePolicy disturbance;            // re-measuring what a busy machine disturbed
  std::string command_line;                 // stored with the session
};

struct LayerStatus {
  std::string name;
  Workload workload;
  int count = 1;
  std::uint64_t space_size = 0;
  Config default_config;
  std::optional<double> default_gops;  // nullopt until measured, or when the default failed
  std::optional<Config> best_config;
  std::optional<double> best_gops;
  std::size_t trials = 0;          // distinct configurations measured (database included)
  std::size_t session_trials = 0;  // measured by this session
  std::size_t failures = 0;        // of `trials`
  std::size_t budget = 0;          // trial target of the layer
  std::size_t since_improvement = 0;  // this session's trials since the last new best
  std::string finished;            // why its search ended ("budget", "space exhausted", "early stop")
  std::size_t disturbed = 0;        // this session's measurements taken again because disturbed
  std::size_t still_disturbed = 0;  // of those, kept disturbed when the retries ran out

  // Seconds per run of the layer at a throughput; nullopt without one.
  std::optional<double> seconds_at(std::optional<double> gops) const;
  std::optional<double> speedup() const;  // best over default
};

enum class SessionEnd { completed, total_budget, time_budget, interrupted };
std::string_view to_string(SessionEnd end);

struct SessionProgress {
  const std::vector<LayerStatus>* layers = nullptr;
  std::optional<std::size_t> current;  // the layer of the trial just measured
  std::size_t trials_done = 0;         // by this session
  std::size_t trials_planned = 0;      // by this session, as far as the trial targets allow
  double elapsed_seconds = 0;
  std::optional<double> eta_seconds;
};

class SessionObserver {
 public:
  virtual ~SessionObserver() = default;
  virtual void on_start(const SessionProgress&) {}
  virtual void on_trial(const SessionProgress&, const MeasureResult&) {}
  // A confirming measurement of a configuration already tried (progress.current is its layer).
  virtual void on_confirm(const SessionProgress&, const MeasureResult&) {}
  virtual void on_end(const SessionProgress&, SessionEnd) {}
};

class TuningSession {
 public:
  // Throws std::invalid_argument for an empty layer list or an invalid workload.
  TuningSession(std::vector<Layer> layers, records::RecordStore& db, Measurer& measurer, SessionOptions options,
                Target target = current_target(), const CpuFeatures& cpu = cpu_features());

  // Tunes until every layer is finished, a budget is spent, or `stop` becomes true (checked before
  // each measurement: the one in flight completes and is committed).
  SessionEnd run(const std::atomic<bool>* stop = nullptr, SessionObserver* observer = nullptr);

  const std::vector<LayerStatus>& layers() const { return layers_; }
  std::optional<std::int64_t> session_id() const { return session_id_; }

 private:
  std::vector<LayerStatus> layers_;
  records::RecordStore& db_;
  Measurer& measurer_;
  SessionOptions options_;
  Target target_;
  const CpuFeatures& cpu_;
  std::optional<std::int64_t> session_id_;

  struct Run;  // the state of one run() and its phases (session.cc)
};

// Identical layers (same workload key) merged, counts added, first name kept, order kept.
std::vector<Layer> merge_identical_layers(const std::vector<Layer>& layers);

}  // namespace qtune
