#include "qtune/tuner/session.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "qtune/kernels/build_info.h"
#include "qtune/search_space/key_hash.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/measurement_record.h"
#include "qtune/tuner/strategy_factory.h"
#include "qtune/tuner/task_scheduler.h"
#include "qtune/tuner/trial_history.h"

namespace qtune {

std::optional<double> LayerStatus::seconds_at(std::optional<double> gops) const {
  if (!gops || !(*gops > 0)) return std::nullopt;
  return workload.gops() / *gops;
}

std::optional<double> LayerStatus::speedup() const {
  if (!best_gops || !default_gops || !(*default_gops > 0)) return std::nullopt;
  return *best_gops / *default_gops;
}

std::string_view to_string(SessionEnd end) {
  switch (end) {
    case SessionEnd::completed: return "completed";
    case SessionEnd::total_budget: return "total trial budget spent";
    case SessionEnd::time_budget: return "time budget spent";
    case SessionEnd::interrupted: return "interrupted";
  }
  return "?";
}

std::vector<Layer> merge_identical_layers(const std::vector<Layer>& layers) {
  std::vector<Layer> merged;
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& layer : layers) {
    auto [it, inserted] = index.try_emplace(layer.workload.key(), merged.size());
    if (inserted) {
      merged.push_back(layer);
    } else {
      merged[it->second].count += layer.count;
    }
  }
  return merged;
}

TuningSession::TuningSession(std::vector<Layer> layers, records::RecordStore& db, Measurer& measurer,
                             SessionOptions options, Target target, const CpuFeatures& cpu)
    : db_(db), measurer_(measurer), options_(std::move(options)), target_(std::move(target)), cpu_(cpu) {
  if (layers.empty()) throw std::invalid_argument("tuning session: no layers to tune");
  if (options_.round_size == 0) throw std::invalid_argument("tuning session: round size must be at least 1");
  for (const auto& layer : merge_identical_layers(layers)) {
    layer.workload.validate();
    if (layer.count < 1)
      throw std::invalid_argument("tuning session: layer '" + layer.name + "' has count " +
                                  std::to_string(layer.count) + ", expected at least 1");
    LayerStatus status;
    status.name = layer.name.empty() ? layer.workload.describe() : layer.name;
    status.workload = layer.workload;
    status.count = layer.count;
    status.default_config = default_config(layer.workload, cpu_);
    layers_.push_back(std::move(status));
  }
}

namespace {

// The layer's best configuration and its default's throughput as the history holds them (each
// configuration's median measurement).
void take_best_and_default(LayerStatus& layer, const TrialHistory& history) {
  for (const auto& o : history.observations()) {
    if (o.config == layer.default_config) layer.default_gops = o.gops;
  }
  if (const Observation* best = history.best()) {
    layer.best_config = best->config;
    layer.best_gops = best->gops;
  }
}

// What the database knows for a target, as the transfer needs it (same operator only).
std::vector<PriorMeasurement> load_priors(const records::TuningRecords& db, const std::string& target_key, OpKind op) {
  records::MeasurementFilter filter;
  filter.target_key = target_key;
  filter.op = std::string(to_string(op));
  std::vector<PriorMeasurement> priors;
  std::map<std::string, std::optional<Workload>> workloads;
  const KnobSpace space = full_space(op);
  for (const auto& record : db.measurements(filter)) {
    auto [it, inserted] = workloads.try_emplace(record.workload_key);
    if (inserted) {
      try {
        it->second = Workload::parse_key(record.workload_key);
      } catch (const std::exception&) {
        // A key this build cannot read (another version's format) cannot inform this one.
      }
    }
    if (!it->second) continue;
    try {
      priors.push_back(PriorMeasurement{*it->second, space.parse(record.config_key), stored_gops(record)});
    } catch (const InvalidConfig&) {
      // Likewise for configurations of knobs this build does not have.
    }
  }
  return priors;
}

}  // namespace

// One run of the session: the per-layer tasks, the scheduler, the progress and the clock, and the
// phases that use them (search rounds, then confirmation).
struct TuningSession::Run {
  using Clock = std::chrono::steady_clock;

  // One per layer: its space, what was measured of it and the strategy choosing its next trials.
  struct Task {
    KnobSpace space;
    TrialHistory history;
    std::unique_ptr<Strategy> strategy;
    // Measured first, with the default: a handful of points that a sampling strategy would rarely
    // draw from a space of thousands: the default's weight-dependent alternatives (the byte family
    // of its registers where the CPU has no VNNI) and the ones a layer may need to beat the library.
    std::vector<Config> first_configs;
  };

  Run(TuningSession& owner, const std::atomic<bool>* stop_flag, SessionObserver* watcher)
      : session(owner), options(owner.options_), layers(owner.layers_), stop(stop_flag), observer(watcher),
        target_key(owner.target_.key()), tasks(prepare_tasks()), scheduler(scheduled_layers(), scheduler_options()) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (layers[i].trials >= layers[i].budget) finish(i, "budget");
    }
    progress.layers = &layers;
  }

  TuningSession& session;
  const SessionOptions& options;
  std::vector<LayerStatus>& layers;
  const std::atomic<bool>* const stop;
  SessionObserver* const observer;
  const std::string target_key;
  const Clock::time_point started = Clock::now();
  std::map<OpKind, std::vector<PriorMeasurement>> priors;  // loaded once per operator, for transfer
  std::vector<Task> tasks;                                 // one per layer
  TaskScheduler scheduler;
  SessionProgress progress;

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started).count(); }
  bool out_of_time() const { return options.time_budget_seconds && elapsed() >= *options.time_budget_seconds; }
  bool stop_requested() const { return stop && stop->load(); }
  int busy_streak = 0;  // measurements in a row kept disturbed (DisturbancePolicy::after_streak)
  // Why no further measurement may start, if one may not.
  std::optional<SessionEnd> cut_short() const {
    if (stop_requested()) return SessionEnd::interrupted;
    if (out_of_time()) return SessionEnd::time_budget;
    return std::nullopt;
  }

  std::size_t total_remaining() const {
    if (!options.total_trials) return std::numeric_limits<std::size_t>::max();
    std::size_t done = 0;
    for (const auto& layer : layers) done += layer.trials;
    return done >= *options.total_trials ? 0 : *options.total_trials - done;
  }

  void finish(std::size_t i, const char* why) {
    if (layers[i].finished.empty()) layers[i].finished = why;
    scheduler.finish(i);
  }

  void update_progress(std::optional<std::size_t> current) {
    progress.current = current;
    progress.elapsed_seconds = elapsed();
    std::size_t open = 0;
    for (const auto& layer : layers) {
      if (layer.finished.empty()) open += layer.budget - std::min(layer.budget, layer.trials);
    }
    progress.trials_planned = progress.trials_done + std::min(open, total_remaining());
    progress.eta_seconds.reset();
    if (progress.trials_done > 0) {
      double eta = progress.elapsed_seconds / static_cast<double>(progress.trials_done) *
                   static_cast<double>(progress.trials_planned - progress.trials_done);
      if (options.time_budget_seconds) eta = std::min(eta, std::max(0.0, *options.time_budget_seconds - progress.elapsed_seconds));
      progress.eta_seconds = eta;
    }
  }

  // Per layer: its space, what the database already has, its strategy and its trial budget.
  std::vector<Task> prepare_tasks() {
    std::vector<Task> prepared;
    for (LayerStatus& layer : layers) {
      Task task{space_for(layer.workload, session.cpu_), {}, nullptr, {}};
      task.first_configs = weight_dependent_alternatives(task.space, layer.default_config);
      for (Config& c : library_configs(task.space)) task.first_configs.push_back(std::move(c));
      layer.space_size = task.space.size();
      if (!options.remeasure) load_history(layer.workload, task.history);
      std::vector<SimilarWorkload> similar;
      if (options.strategy == StrategyKind::model && options.transfer) {
        auto it = priors.find(layer.workload.op);
        if (it == priors.end())
          it = priors.emplace(layer.workload.op, load_priors(session.db_, target_key, layer.workload.op)).first;
        similar = similar_workloads(layer.workload, it->second, options.similar_workloads);
      }
      // Each layer's search gets its own stream, the same on every run and machine.
      const std::uint64_t seed = options.seed ^ key_hash(layer.workload.key());
      task.strategy = make_strategy(options.strategy, task.space, layer.workload, similar, seed, options.model);

      layer.trials = task.history.size();
      for (const auto& o : task.history.observations()) {
        if (!o.gops) ++layer.failures;
      }
      take_best_and_default(layer, task.history);
      // The default counts as one more configuration when it lies outside the search space.
      const std::size_t reachable = layer.space_size + (task.space.check(layer.default_config).empty() ? 0 : 1);
      layer.budget = std::min<std::size_t>(options.trials_per_layer.value_or(reachable), reachable);
      prepared.push_back(std::move(task));
    }
    return prepared;
  }

  void load_history(const Workload& workload, TrialHistory& history) const {
    records::MeasurementFilter filter;
    filter.workload_key = workload.key();
    filter.target_key = target_key;
    const KnobSpace full = full_space(workload.op);
    for (const auto& record : session.db_.measurements(filter)) {
      try {
        history.add(full.parse(record.config_key), stored_gops(record), record.disturbed());
      } catch (const InvalidConfig&) {
        // Not a configuration of this build: it cannot be proposed here either.
      }
    }
  }

  std::vector<ScheduledTask> scheduled_layers() const {
    std::vector<ScheduledTask> scheduled;
    for (const auto& layer : layers) {
      scheduled.push_back(ScheduledTask{static_cast<double>(layer.count), layer.workload.gops(),
                                        std::string(to_string(layer.workload.op))});
    }
    return scheduled;
  }

  SchedulerOptions scheduler_options() const {
    SchedulerOptions chosen;
    chosen.seed = options.seed;
    return chosen;
  }

  // Measures `config` of layer t and commits the result; nullopt when the measurement says nothing
  // about the configuration (its worker died from the user's Ctrl-C).
  std::optional<MeasureResult> measure(std::size_t t, const Config& config) {
    UndisturbedMeasurement measured =
        measure_undisturbed(session.measurer_, layers[t].workload, config, options.measure,
                            options.disturbance.after_streak(busy_streak), [this] { return stop_requested(); });
    busy_streak = measured.disturbed ? busy_streak + 1 : 0;
    MeasureResult& result = measured.result;
    // A worker that died because the user's Ctrl-C reached it too says nothing about the
    // configuration: leave it unmeasured rather than blame it for a crash forever.
    if (stop_requested() && result.error == ErrorKind::crash) return std::nullopt;
    result.workload_key = layers[t].workload.key();
    result.config_key = config.key();
    records::MeasurementRecord record = to_measurement_record(result, *session.session_id_, target_key);
    record_disturbance(record, measured);
    session.db_.add_measurement(record);
    if (measured.disturbed_attempts > 0 || measured.disturbed) ++layers[t].disturbed;
    if (measured.disturbed) ++layers[t].still_disturbed;
    tasks[t].history.add(config, result.ok() ? std::optional<double>(result.gops) : std::nullopt, measured.disturbed);
    return result;
  }

  // Rounds of trials, layer by layer as the scheduler decides, until every layer is finished or a
  // budget or the user ends the search.
  SessionEnd search() {
    for (;;) {
      if (auto end = cut_short()) return *end;
      if (total_remaining() == 0) return SessionEnd::total_budget;
      const auto next = scheduler.next();
      if (!next) return SessionEnd::completed;
      if (auto end = search_round(*next)) return *end;
    }
  }

  // One round of layer t: its default first if never measured, then the first configurations
  // (Task::first_configs) not yet measured, then the strategy's proposals.
  // Returns why the session ends when it was cut short during the round.
  std::optional<SessionEnd> search_round(std::size_t t) {
    LayerStatus& layer = layers[t];
    Task& task = tasks[t];
    const std::size_t want =
        std::min({options.round_size, layer.budget - std::min(layer.budget, layer.trials), total_remaining()});
    std::vector<Config> round;
    if (!task.history.contains(layer.default_config)) round.push_back(layer.default_config);
    for (const Config& c : task.first_configs) {
      if (round.size() < want && !task.history.contains(c)) round.push_back(c);
    }
    if (round.size() < want) {
      for (auto& c : task.strategy->propose(task.history, want - round.size())) round.push_back(std::move(c));
    }
    if (round.empty()) {
      finish(t, "space exhausted");
      return std::nullopt;
    }

    bool halted = false;
    for (const Config& config : round) {
      if (cut_short()) {
        halted = true;
        break;
      }
      const bool is_new = !task.history.contains(config);
      const std::optional<MeasureResult> measured = measure(t, config);
      if (!measured) {
        halted = true;
        break;
      }
      count_trial(layer, config, *measured, is_new);
      update_progress(t);
      if (observer) observer->on_trial(progress, *measured);
      if (options.early_stop && layer.since_improvement >= *options.early_stop) {
        finish(t, "early stop");
        break;
      }
    }
    scheduler.record_round(t, layer.seconds_at(layer.best_gops).value_or(std::numeric_limits<double>::infinity()));
    if (layer.trials >= layer.budget) finish(t, "budget");
    if (halted) return stop_requested() ? SessionEnd::interrupted : SessionEnd::time_budget;
    return std::nullopt;
  }

  void count_trial(LayerStatus& layer, const Config& config, const MeasureResult& result, bool is_new) {
    const std::optional<double> gops = result.ok() ? std::optional<double>(result.gops) : std::nullopt;
    if (is_new) ++layer.trials;
    ++layer.session_trials;
    ++progress.trials_done;
    if (!gops) ++layer.failures;
    if (config == layer.default_config) layer.default_gops = gops;
    if (gops && (!layer.best_gops || *gops > *layer.best_gops)) {
      layer.best_gops = gops;
      layer.best_config = config;
      layer.since_improvement = 0;
    } else {
      ++layer.since_improvement;
    }
  }

  // Confirmation (SessionOptions::confirm_top), layer by layer, unless the search was cut short.
  // Returns how the session ends.
  SessionEnd confirm(SessionEnd search_end) {
    if (search_end == SessionEnd::interrupted || search_end == SessionEnd::time_budget) return search_end;
    for (std::size_t t = 0; t < layers.size() && options.confirm_top > 0; ++t) {
      if (auto end = confirm_layer(t)) return *end;
    }
    return search_end;
  }

  // Each pass measures every finalist once, so that their measurements interleave. The finalists
  // are the leading configurations that lack samples (due_for_confirmation) and every one that
  // was due in an earlier pass: a configuration that rises into the lead later is measured in the
  // same passes as those confirmed before it, never against their measurements of another moment
  // alone (a shared machine can be slower for everything for a while).
  std::optional<SessionEnd> confirm_layer(std::size_t t) {
    std::vector<Config> finalists;
    for (std::size_t pass = 0; pass < 4 * options.confirm_samples; ++pass) {
      const std::vector<Config> due = due_for_confirmation(t);
      if (due.empty()) return std::nullopt;
      for (const Config& config : due) {
        if (std::find(finalists.begin(), finalists.end(), config) == finalists.end()) finalists.push_back(config);
      }
      for (const Config& config : finalists) {
        if (auto end = cut_short()) return end;
        const std::optional<MeasureResult> result = measure(t, config);
        if (!result) return SessionEnd::interrupted;
        take_best_and_default(layers[t], tasks[t].history);
        update_progress(t);
        if (observer) observer->on_confirm(progress, *result);
      }
    }
    return std::nullopt;
  }

  // The leading configurations of layer t (confirm_top of them, and the default) that have fewer
  // than confirm_samples correct measurements, fastest first.
  std::vector<Config> due_for_confirmation(std::size_t t) const {
    std::vector<const Observation*> leading;
    for (const auto& o : tasks[t].history.observations()) {
      if (o.gops) leading.push_back(&o);
    }
    std::sort(leading.begin(), leading.end(), [](const Observation* a, const Observation* b) { return *a->gops > *b->gops; });
    std::vector<Config> due;
    for (std::size_t i = 0; i < leading.size(); ++i) {
      const bool wanted = i < options.confirm_top || leading[i]->config == layers[t].default_config;
      if (wanted && tasks[t].history.samples(leading[i]->config) < options.confirm_samples) due.push_back(leading[i]->config);
    }
    return due;
  }
};

SessionEnd TuningSession::run(const std::atomic<bool>* stop, SessionObserver* observer) {
  Run run(*this, stop, observer);
  records::SessionInfo info;
  info.command_line = options_.command_line;
  info.strategy = std::string(to_string(options_.strategy));
  info.seed = options_.seed;
  info.target_key = run.target_key;
  info.qtune_version = version();
  session_id_ = db_.begin_session(info);
  run.update_progress(std::nullopt);
  if (observer) observer->on_start(run.progress);

  SessionEnd end = SessionEnd::completed;
  try {
    end = run.confirm(run.search());
  } catch (...) {
    db_.end_session(*session_id_, records::SessionStatus::failed);
    throw;
  }
  db_.end_session(*session_id_,
                  end == SessionEnd::interrupted ? records::SessionStatus::interrupted : records::SessionStatus::completed);
  run.update_progress(std::nullopt);
  if (observer) observer->on_end(run.progress, end);
  return end;
}

}  // namespace qtune
