#include "qtune/tuner/session.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "qtune/kernels/build_info.h"
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

TuningSession::TuningSession(std::vector<Layer> layers, records::TuningDb& db, Measurer& measurer,
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

// FNV-1a 64: each layer's search gets its own stream, the same on every run and machine.
std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

struct Task {
  KnobSpace space;
  TrialHistory history;
  std::unique_ptr<Strategy> strategy;
  // Measured first, with the default: a handful of points that a sampling strategy would rarely
  // draw from a space of thousands, and the ones a layer may need to beat the library.
  std::vector<Config> library_configs;
};

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
std::vector<PriorMeasurement> load_priors(const records::TuningDb& db, const std::string& target_key, OpKind op) {
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

SessionEnd TuningSession::run(const std::atomic<bool>* stop, SessionObserver* observer) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  auto stop_requested = [&] { return stop && stop->load(); };
  const std::string target_key = target_.key();

  // Per layer: its space, what the database already has, and its strategy.
  std::map<OpKind, std::vector<PriorMeasurement>> priors;
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    LayerStatus& layer = layers_[i];
    Task task{space_for(layer.workload, cpu_), {}, nullptr, {}};
    task.library_configs = library_configs(task.space);
    layer.space_size = task.space.size();
    if (!options_.remeasure) {
      records::MeasurementFilter filter;
      filter.workload_key = layer.workload.key();
      filter.target_key = target_key;
      const KnobSpace full = full_space(layer.workload.op);
      for (const auto& record : db_.measurements(filter)) {
        try {
          task.history.add(full.parse(record.config_key), stored_gops(record));
        } catch (const InvalidConfig&) {
          // Not a configuration of this build: it cannot be proposed here either.
        }
      }
    }
    std::vector<SimilarWorkload> similar;
    if (options_.strategy == StrategyKind::model && options_.transfer) {
      auto it = priors.find(layer.workload.op);
      if (it == priors.end()) it = priors.emplace(layer.workload.op, load_priors(db_, target_key, layer.workload.op)).first;
      similar = similar_workloads(layer.workload, it->second, options_.similar_workloads);
    }
    const std::uint64_t seed = options_.seed ^ stable_hash(layer.workload.key());
    task.strategy = make_strategy(options_.strategy, task.space, layer.workload, similar, seed);

    layer.trials = task.history.size();
    for (const auto& o : task.history.observations()) {
      if (!o.gops) ++layer.failures;
    }
    take_best_and_default(layer, task.history);
    // The default counts as one more configuration when it lies outside the search space.
    const std::size_t reachable = layer.space_size + (task.space.check(layer.default_config).empty() ? 0 : 1);
    layer.budget = std::min<std::size_t>(options_.trials_per_layer.value_or(reachable), reachable);
    tasks.push_back(std::move(task));
  }

  std::vector<ScheduledTask> scheduled;
  for (const auto& layer : layers_) {
    scheduled.push_back(ScheduledTask{static_cast<double>(layer.count), layer.workload.gops(),
                                      std::string(to_string(layer.workload.op))});
  }
  SchedulerOptions scheduler_options;
  scheduler_options.seed = options_.seed;
  TaskScheduler scheduler(std::move(scheduled), scheduler_options);

  auto total_trials = [&] {
    std::size_t n = 0;
    for (const auto& layer : layers_) n += layer.trials;
    return n;
  };
  auto total_remaining = [&]() -> std::size_t {
    if (!options_.total_trials) return std::numeric_limits<std::size_t>::max();
    const std::size_t done = total_trials();
    return done >= *options_.total_trials ? 0 : *options_.total_trials - done;
  };
  auto finish = [&](std::size_t i, const char* why) {
    if (layers_[i].finished.empty()) layers_[i].finished = why;
    scheduler.finish(i);
  };
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i].trials >= layers_[i].budget) finish(i, "budget");
  }

  SessionProgress progress;
  progress.layers = &layers_;
  auto plan = [&] {
    std::size_t open = 0;
    for (const auto& layer : layers_) {
      if (layer.finished.empty()) open += layer.budget - std::min(layer.budget, layer.trials);
    }
    progress.trials_planned = progress.trials_done + std::min(open, total_remaining());
  };
  auto update_progress = [&](std::optional<std::size_t> current) {
    progress.current = current;
    progress.elapsed_seconds = elapsed();
    plan();
    progress.eta_seconds.reset();
    if (progress.trials_done > 0) {
      double eta = progress.elapsed_seconds / static_cast<double>(progress.trials_done) *
                   static_cast<double>(progress.trials_planned - progress.trials_done);
      if (options_.time_budget_seconds) eta = std::min(eta, std::max(0.0, *options_.time_budget_seconds - progress.elapsed_seconds));
      progress.eta_seconds = eta;
    }
  };

  records::SessionInfo info;
  info.command_line = options_.command_line;
  info.strategy = std::string(to_string(options_.strategy));
  info.seed = options_.seed;
  info.target_key = target_key;
  info.qtune_version = version();
  session_id_ = db_.begin_session(info);
  update_progress(std::nullopt);
  if (observer) observer->on_start(progress);

  SessionEnd end = SessionEnd::completed;
  auto out_of_time = [&] { return options_.time_budget_seconds && elapsed() >= *options_.time_budget_seconds; };
  // Measures `config` of layer t and commits the result; nullopt when the measurement says nothing
  // about the configuration (its worker died from the user's Ctrl-C).
  auto measure = [&](std::size_t t, const Config& config) -> std::optional<MeasureResult> {
    MeasureResult result = measurer_.measure(layers_[t].workload, config, options_.measure);
    // A worker that died because the user's Ctrl-C reached it too says nothing about the
    // configuration: leave it unmeasured rather than blame it for a crash forever.
    if (stop_requested() && result.error == ErrorKind::crash) return std::nullopt;
    result.workload_key = layers_[t].workload.key();
    result.config_key = config.key();
    db_.add_measurement(to_measurement_record(result, session_id_, target_key));
    tasks[t].history.add(config, result.ok() ? std::optional<double>(result.gops) : std::nullopt);
    return result;
  };
  try {
    for (;;) {
      if (stop_requested()) {
        end = SessionEnd::interrupted;
        break;
      }
      if (out_of_time()) {
        end = SessionEnd::time_budget;
        break;
      }
      if (total_remaining() == 0) {
        end = SessionEnd::total_budget;
        break;
      }
      const auto next = scheduler.next();
      if (!next) break;
      const std::size_t t = *next;
      LayerStatus& layer = layers_[t];
      Task& task = tasks[t];
      const std::size_t want =
          std::min({options_.round_size, layer.budget - std::min(layer.budget, layer.trials), total_remaining()});
      std::vector<Config> round;
      if (!task.history.contains(layer.default_config)) round.push_back(layer.default_config);
      for (const Config& c : task.library_configs) {
        if (round.size() < want && !task.history.contains(c)) round.push_back(c);
      }
      if (round.size() < want) {
        for (auto& c : task.strategy->propose(task.history, want - round.size())) round.push_back(std::move(c));
      }
      if (round.empty()) {
        finish(t, "space exhausted");
        continue;
      }

      bool halted = false;
      for (const Config& config : round) {
        if (stop_requested() || out_of_time()) {
          halted = true;
          break;
        }
        const bool is_new = !task.history.contains(config);
        const std::optional<MeasureResult> measured = measure(t, config);
        if (!measured) {
          halted = true;
          break;
        }
        const MeasureResult& result = *measured;
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
        update_progress(t);
        if (observer) observer->on_trial(progress, result);
        if (options_.early_stop && layer.since_improvement >= *options_.early_stop) {
          finish(t, "early stop");
          break;
        }
      }
      scheduler.record_round(t, layer.seconds_at(layer.best_gops).value_or(std::numeric_limits<double>::infinity()));
      if (layer.trials >= layer.budget) finish(t, "budget");
      if (halted) {
        end = stop_requested() ? SessionEnd::interrupted : SessionEnd::time_budget;
        break;
      }
    }
    // Confirmation (SessionOptions::confirm_top), layer by layer, unless the session was cut short.
    for (std::size_t t = 0; t < layers_.size() && options_.confirm_top > 0; ++t) {
      if (end == SessionEnd::interrupted || end == SessionEnd::time_budget) break;
      const Config& default_config = layers_[t].default_config;
      // Each pass measures every leading configuration that still lacks samples once, so their
      // measurements interleave; a configuration that rises into the lead joins the next pass.
      for (std::size_t pass = 0; pass < 4 * options_.confirm_samples; ++pass) {
        std::vector<const Observation*> leading;
        for (const auto& o : tasks[t].history.observations()) {
          if (o.gops) leading.push_back(&o);
        }
        std::sort(leading.begin(), leading.end(), [](const Observation* a, const Observation* b) { return *a->gops > *b->gops; });
        std::vector<Config> due;
        for (std::size_t i = 0; i < leading.size(); ++i) {
          const bool wanted = i < options_.confirm_top || leading[i]->config == default_config;
          if (wanted && tasks[t].history.samples(leading[i]->config) < options_.confirm_samples) {
            due.push_back(leading[i]->config);
          }
        }
        if (due.empty()) break;
        for (const Config& config : due) {
          if (stop_requested() || out_of_time()) {
            end = stop_requested() ? SessionEnd::interrupted : SessionEnd::time_budget;
            break;
          }
          const std::optional<MeasureResult> result = measure(t, config);
          if (!result) {
            end = SessionEnd::interrupted;
            break;
          }
          take_best_and_default(layers_[t], tasks[t].history);
          update_progress(t);
          if (observer) observer->on_confirm(progress, *result);
        }
        if (end != SessionEnd::completed && end != SessionEnd::total_budget) break;
      }
    }
  } catch (...) {
    db_.end_session(*session_id_, records::SessionStatus::failed);
    throw;
  }
  db_.end_session(*session_id_,
                  end == SessionEnd::interrupted ? records::SessionStatus::interrupted : records::SessionStatus::completed);
  update_progress(std::nullopt);
  if (observer) observer->on_end(progress, end);
  return end;
}

}  // namespace qtune
