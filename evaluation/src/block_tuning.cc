#include "qtune/evaluation/block_tuning.h"

#include <algorithm>
#include <iomanip>
#include <map>

#include "qtune/executor/model_blocks.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/block_workload.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/measurement_record.h"

namespace qtune::evaluation {
namespace {

// A member's configuration for a block: its tuned best where qtune's kernels compute it and this
// build's conv2d space holds it, else nothing.
std::optional<std::string> tuned_member(const records::TuningDb& db, const Workload& member, const std::string& target) {
  const std::optional<records::BestRecord> best = db.best(member.key(), target);
  if (!best) return std::nullopt;
  try {
    const Config config = full_space(OpKind::conv2d).parse(best->measurement.config_key);
    if (to_library_config(config)) return std::nullopt;
    return config.key();
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// The member sets a block is measured with: the layers' tuned configurations (each member's
// default where it has none), and the defaults alone where they differ.
std::vector<std::vector<std::string>> member_sets(const records::TuningDb& db, const BlockWorkload& block,
                                                  const std::string& target) {
  std::vector<std::string> tuned, defaults;
  for (const Workload& member : block.members) {
    defaults.push_back(default_config(member, cpu_features()).key());
    tuned.push_back(tuned_member(db, member, target).value_or(defaults.back()));
  }
  std::vector<std::vector<std::string>> sets{tuned};
  if (defaults != tuned) sets.push_back(defaults);
  return sets;
}

// Each configuration's time as the records define it (best_selection.h): the lower median of its
// correct measurements' medians; with how many there are.
struct ConfigTime {
  double ns = 0;
  int measurements = 0;
};

std::map<std::string, ConfigTime> config_times(const records::TuningDb& db, const std::string& workload_key,
                                               const std::string& target) {
  records::MeasurementFilter filter;
  filter.workload_key = workload_key;
  filter.target_key = target;
  filter.correct_only = true;
  std::map<std::string, std::vector<double>> medians;
  for (const records::MeasurementRecord& m : db.measurements(filter))
    if (m.stats) medians[m.config_key].push_back(m.stats->median_ns);
  std::map<std::string, ConfigTime> times;
  for (auto& [config, ns] : medians) {
    std::sort(ns.begin(), ns.end());
    times[config] = {ns[(ns.size() - 1) / 2], static_cast<int>(ns.size())};
  }
  return times;
}

// As a tuning session confirms a layer's leading configurations (tuner/session.h).
constexpr int kConfirmMeasurements = 3;

// The choice the runtime makes from these records (Runtime::tuned_block): the fastest fused
// configuration where it pays by the margin, else the layers one by one.
void summarize(const std::map<std::string, ConfigTime>& times, BlockTuning& t) {
  std::string unfused;
  for (const auto& [config, time] : times) {
    if (is_unfused_block_config(config)) {
      t.unfused_ns = time.ns;
      unfused = config;
    } else if (!t.best_ns || time.ns < *t.best_ns) {
      t.best_ns = time.ns;
      t.best_config = config;
    }
  }
  if (t.unfused_ns && (!t.best_ns || !fused_block_pays(*t.best_ns, *t.unfused_ns))) {
    t.best_ns = t.unfused_ns;
    t.best_config = unfused;
  }
}

// The configurations to measure again: the layers one by one and the leading fused ones.
std::vector<std::string> leading(const std::map<std::string, ConfigTime>& times, int count) {
  std::vector<std::pair<double, std::string>> fused;
  std::vector<std::string> chosen;
  for (const auto& [config, time] : times) {
    if (is_unfused_block_config(config)) chosen.push_back(config);
    else fused.emplace_back(time.ns, config);
  }
  std::sort(fused.begin(), fused.end());
  for (std::size_t i = 0; i < fused.size() && static_cast<int>(i) < count; ++i) chosen.push_back(fused[i].second);
  return chosen;
}

}  // namespace

std::vector<BlockTuning> tune_model_blocks(const onnx_import::ModelGraph& graph, records::TuningDb& db,
                                           const KeyMeasure& measure, const BlockTuningOptions& options) {
  std::vector<BlockTuning> results;
  std::vector<std::string> done;
  for (const executor::ModelBlock& block : executor::model_blocks(graph, options.threads)) {
    BlockTuning t;
    t.name = block.name;
    t.workload_key = block.workload.key();
    if (std::find(done.begin(), done.end(), t.workload_key) != done.end()) continue;  // the same block again
    done.push_back(t.workload_key);
    const auto measure_one = [&](const std::string& config_key) {
      const MeasureResult result = measure(t.workload_key, config_key, options.measure);
      db.add_measurement(to_measurement_record(result, options.session_id, options.target_key));
      ++t.measured;
      if (!result.ok()) ++t.errors;
    };
    const auto stopped = [&] { return options.stop && options.stop->load(); };
    for (const BlockConfig& candidate : executor::block_candidates(block.workload, member_sets(db, block.workload,
                                                                                               options.target_key))) {
      if (stopped()) break;
      if (!db.has_measured(t.workload_key, options.target_key, candidate.key())) measure_one(candidate.key());
    }
    // The layers one by one and the leading fused candidates measured again, in turns, until each
    // has three measurements: one quiet or busy moment of a shared machine decides nothing. As a
    // tuning session does (tuner/session.cc, confirm_layer), a candidate that rises into the lead
    // later is measured in the same turns as those before it; a candidate that keeps failing is
    // not measured forever.
    std::vector<std::string> finalists;
    std::map<std::string, int> attempts;
    for (int pass = 0; options.confirm > 0 && pass < 4 * kConfirmMeasurements && !stopped(); ++pass) {
      const std::map<std::string, ConfigTime> times = config_times(db, t.workload_key, options.target_key);
      bool due = false;
      for (const std::string& config : leading(times, options.confirm)) {
        const bool enough = times.at(config).measurements >= kConfirmMeasurements;
        if (enough || attempts[config] >= 2 * kConfirmMeasurements) continue;
        due = true;
        if (std::find(finalists.begin(), finalists.end(), config) == finalists.end()) finalists.push_back(config);
      }
      if (!due) break;
      for (const std::string& config : finalists) {
        if (stopped()) break;
        ++attempts[config];
        measure_one(config);
      }
    }
    summarize(config_times(db, t.workload_key, options.target_key), t);
    if (options.progress) {
      std::ostream& out = *options.progress;
      out << "block " << t.name << " (" << block.workload.describe() << "): " << t.measured << " measured";
      if (t.errors) out << ", " << t.errors << " failed";
      if (t.best_ns && t.unfused_ns)
        out << "; chosen " << t.best_config.substr(0, t.best_config.find('|')) << " " << std::fixed << std::setprecision(1)
            << *t.best_ns / 1e3 << " us, unfused " << *t.unfused_ns / 1e3 << " us (" << std::setprecision(2)
            << *t.unfused_ns / *t.best_ns << "x)" << std::defaultfloat;
      out << "\n";
    }
    results.push_back(std::move(t));
    if (options.stop && options.stop->load()) break;
  }
  return results;
}

}  // namespace qtune::evaluation
