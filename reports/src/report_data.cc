#include "qtune/reports/report_data.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "knob_effects.h"
#include "layer_results.h"
#include "network_run_results.h"
#include "qtune/kernels/build_info.h"
#include "qtune/records/key_validators.h"
#include "qtune/records/network_runs.h"
#include "qtune/records/timestamp.h"

namespace qtune::reports {

std::optional<double> LayerReport::speedup() const {
  if (!untuned || !tuned || !(tuned->median_ns > 0)) return std::nullopt;
  return untuned->median_ns / tuned->median_ns;
}

std::optional<double> LayerReport::network_ns() const {
  if (tuned) return tuned->median_ns * count;
  if (untuned) return untuned->median_ns * count;
  return std::nullopt;
}

double total_network_ns(const ReportData& data) {
  double total = 0;
  for (const auto& layer : data.layers) total += layer.network_ns().value_or(0);
  return total;
}

namespace {

std::string choose_target(const records::TuningDb& db, const ReportOptions& options,
                          const std::vector<records::TargetSummary>& targets) {
  auto has = [&](const std::string& key) {
    return std::any_of(targets.begin(), targets.end(),
                       [&](const records::TargetSummary& t) { return t.key == key && t.measurements > 0; });
  };
  if (!options.target_key.empty()) {
    if (has(options.target_key)) return options.target_key;
    std::string known;
    for (const auto& t : targets) known += "\n  " + t.key + " (" + std::to_string(t.measurements) + " measurements)";
    throw std::invalid_argument(db.path() + ": no measurements for target '" + options.target_key + "'" +
                                (known.empty() ? std::string(" (the database is empty)") : "; it holds:" + known));
  }
  if (!options.preferred_target_key.empty() && has(options.preferred_target_key)) return options.preferred_target_key;
  const records::TargetSummary* most = nullptr;
  for (const auto& t : targets) {
    if (!most || t.measurements > most->measurements) most = &t;
  }
  if (!most || most->measurements == 0)
    throw std::invalid_argument(db.path() + ": no measurements to report (tune first: qtune tune --db " + db.path() + ")");
  return most->key;
}

struct WorkloadFacts {
  std::optional<OpKind> op;
  std::string op_name;
  std::string description;
  std::optional<double> gop_per_run;
};

// What the workload key says, through search_space when this build can read it, else through
// what the database stored about it.
WorkloadFacts facts_of(const std::string& key, const std::map<std::string, records::WorkloadSummary>& stored) {
  WorkloadFacts f;
  try {
    const Workload w = Workload::parse_key(key);
    f.op = w.op;
    f.op_name = std::string(to_string(w.op));
    f.description = w.describe();
    f.gop_per_run = w.gops();
    return f;
  } catch (const std::exception&) {
  }
  if (auto it = stored.find(key); it != stored.end()) {
    f.op_name = it->second.op;
    f.description = it->second.description;
    f.gop_per_run = it->second.gops;
  }
  if (f.op_name.empty()) f.op_name = records::default_workload_summary(key).op;
  if (f.description.empty()) f.description = key;
  return f;
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::size_t choose_focus(const std::vector<LayerReport>& layers, const std::string& wanted, std::string& chosen_by) {
  if (!wanted.empty()) {
    chosen_by = "--layer";
    if (all_digits(wanted)) {
      const unsigned long long index = std::stoull(wanted);
      if (index >= 1 && index <= layers.size()) return static_cast<std::size_t>(index - 1);
      throw std::invalid_argument("--layer " + wanted + ": the report has layers 1 to " + std::to_string(layers.size()));
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (layers[i].workload_key == wanted || layers[i].name == wanted) return i;
    }
    throw std::invalid_argument("--layer '" + wanted + "': no such layer (give a workload key, a layer name or an index 1 to " +
                                std::to_string(layers.size()) + ")");
  }
  chosen_by = "most time";
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto ns = layers[i].network_ns();
    if (ns && (!best || *ns > *layers[*best].network_ns())) best = i;
  }
  if (!best) throw std::logic_error("choose_focus: no layer has a timing");
  return *best;
}

ReportSummary summarize(const std::vector<LayerReport>& layers,
                        const std::map<std::string, std::vector<records::MeasurementRecord>>& by_workload) {
  ReportSummary s;
  s.layers = layers.size();
  NetworkTimes onednn;
  for (const auto& layer : layers) {
    s.trials += layer.trials;
    s.failures += layer.failures;
    if (layer.tuned) ++s.layers_tuned;
    if (auto it = by_workload.find(layer.workload_key); it != by_workload.end()) {
      for (const auto& m : it->second) {
        if (!m.correct()) ++s.failure_kinds[m.error_kind];
      }
    }
    if (layer.untuned && layer.tuned) {
      ++s.untuned_vs_tuned.layers;
      s.untuned_vs_tuned.baseline_ns += layer.untuned->median_ns * layer.count;
      s.untuned_vs_tuned.tuned_ns += layer.tuned->median_ns * layer.count;
    }
    // Against oneDNN, the tuned time of the same run when it has one: same process, same moment.
    const std::optional<ConfigTiming>& tuned = layer.run_tuned ? layer.run_tuned : layer.tuned;
    if (layer.onednn && tuned) {
      ++onednn.layers;
      onednn.baseline_ns += layer.onednn->median_ns * layer.count;
      onednn.tuned_ns += tuned->median_ns * layer.count;
    }
  }
  if (onednn.layers > 0) s.onednn_vs_tuned = onednn;
  return s;
}

}  // namespace

ReportData gather_report_data(const records::TuningDb& db, const ReportOptions& options) {
  ReportData data;
  data.database = db.path();
  data.generated_at = records::utc_now_iso8601();
  data.qtune_version = version();
  data.workloads_origin = options.workloads_origin;

  const auto targets = db.targets();
  data.target_key = choose_target(db, options, targets);
  const records::TargetSummary target = records::default_target_summary(data.target_key);
  data.target_cpu = target.cpu;
  data.target_arch = target.arch;
  for (const auto& t : targets) {
    if (t.key != data.target_key && t.measurements > 0) data.other_targets.push_back(t.key);
  }

  records::MeasurementFilter on_target;
  on_target.target_key = data.target_key;
  std::map<std::string, std::vector<records::MeasurementRecord>> by_workload;
  std::vector<std::string> measured_order;  // workloads in the order they were first measured
  for (auto& m : db.measurements(on_target)) {
    auto& list = by_workload[m.workload_key];
    if (list.empty()) measured_order.push_back(m.workload_key);
    list.push_back(std::move(m));
  }
  std::map<std::string, records::WorkloadSummary> stored;
  for (auto& w : db.workloads(on_target)) stored.emplace(w.key, std::move(w));

  // The layers: the network file's, in its order, else every workload measured on the target.
  struct Wanted {
    std::string key, name;
    int count;
  };
  std::vector<Wanted> wanted;
  if (options.workloads) {
    data.network = options.workloads->network;
    for (const auto& layer : options.workloads->layers) wanted.push_back({layer.workload.key(), layer.name, layer.count});
  } else {
    for (const auto& key : measured_order) wanted.push_back({key, "", 1});
  }

  std::map<std::int64_t, std::string> strategy_of_session;
  const auto sessions = db.sessions();
  for (const auto& s : sessions) strategy_of_session[s.id] = s.info.strategy;

  static const std::vector<records::MeasurementRecord> kNone;
  for (const auto& w : wanted) {
    LayerReport layer;
    layer.index = data.layers.size() + 1;
    layer.workload_key = w.key;
    layer.count = w.count;
    const WorkloadFacts facts = facts_of(w.key, stored);
    layer.op = facts.op_name;
    layer.description = facts.description;
    layer.gop_per_run = facts.gop_per_run;
    layer.name = w.name.empty() ? facts.description : w.name;
    auto it = by_workload.find(w.key);
    fill_layer_results(layer, it == by_workload.end() ? kNone : it->second, strategy_of_session);
    data.layers.push_back(std::move(layer));
  }

  records::NetworkRunFilter runs_on_target;
  runs_on_target.target_key = data.target_key;
  attach_network_runs(data.layers, records::network_runs(db, runs_on_target));

  // Sessions that measured any reported layer on the target.
  std::map<std::int64_t, SessionReport> session_reports;
  for (const auto& layer : data.layers) {
    auto it = by_workload.find(layer.workload_key);
    if (it == by_workload.end()) continue;
    for (const auto& m : it->second) {
      if (!m.session_id) continue;
      SessionReport& r = session_reports[*m.session_id];
      ++r.trials;
      if (!m.correct()) ++r.failures;
    }
  }
  for (const auto& s : sessions) {
    auto it = session_reports.find(s.id);
    if (it == session_reports.end()) continue;
    SessionReport r = it->second;
    r.id = s.id;
    r.strategy = s.info.strategy;
    r.status = records::to_string(s.status);
    r.started_at = s.started_at;
    r.ended_at = s.ended_at;
    data.sessions.push_back(std::move(r));
  }

  data.summary = summarize(data.layers, by_workload);

  const bool any_timing =
      std::any_of(data.layers.begin(), data.layers.end(), [](const LayerReport& l) { return l.network_ns().has_value(); });
  if (any_timing || !options.focus_layer.empty()) {
    FocusLayer focus;
    focus.layer = choose_focus(data.layers, options.focus_layer, focus.chosen_by);
    const LayerReport& layer = data.layers[focus.layer];
    auto it = by_workload.find(layer.workload_key);
    const auto& measurements = it == by_workload.end() ? kNone : it->second;
    focus.heat_map = isa_tile_heat_map(facts_of(layer.workload_key, stored).op, measurements, layer.gop_per_run);
    focus.fuse = fuse_effect(measurements, layer.gop_per_run, options.max_fuse_pairs);
    data.focus = std::move(focus);
  }
  return data;
}

}  // namespace qtune::reports
