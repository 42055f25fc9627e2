// Building a Runtime: from tuned entries in memory, or from the tuning records of a database or a
// JSON-lines log, which load through one path (records::TuningRecords); the tuned table is a hash
// map from lookup key to the best entry of the runtime's target.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "qtune/records/best_selection.h"
#include "qtune/records/open_tuning_records.h"
#include "qtune/records/tuning_db.h"
#include "qtune/records/tuning_log.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/runtime/workload_of.h"
#include "qtune/search_space/block_workload.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/target_compatibility.h"
#include "runtime_state.h"

namespace qtune::runtime {
namespace {

std::shared_ptr<Runtime::State> empty_state(RuntimeOptions& options) {
  auto state = std::make_shared<Runtime::State>();
  state->target_key = options.target_key.empty() ? current_target().key() : std::move(options.target_key);
  state->sink = options.warning_sink ? std::move(options.warning_sink) : stderr_warning_sink();
  return state;
}

TunedEntry parse_entry(const TunedConfig& e, std::size_t index) {
  const std::string where = "tuned entry " + std::to_string(index + 1) + " (workload '" + e.workload_key + "')";
  TunedEntry entry;
  try {
    entry.workload = Workload::parse_key(e.workload_key);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(where + ": " + error.what());
  }
  try {
    entry.config = full_space(entry.workload.op).parse(e.config_key);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(where + ": configuration '" + e.config_key + "': " + error.what());
  }
  entry.lookup_key = lookup_key(entry.workload);
  entry.median_ns = e.median_ns;
  const std::optional<LibraryConfig> library = to_library_config(entry.config);
  entry.kind = library ? library->library : "qtune";
  return entry;
}

// The kind of a stored configuration as parse_entry tells it ("qtune" where the keys do not parse:
// parse_entry reports those).
std::string candidate_kind_of(const records::MeasurementRecord& m) {
  // A block's two kinds: the runtime weighs the fastest fused configuration against its layers.
  if (is_block_key(m.workload_key)) return is_unfused_block_config(m.config_key) ? "unfused" : "fused";
  try {
    const Workload workload = Workload::parse_key(m.workload_key);
    if (const auto library = to_library_config(full_space(workload.op).parse(m.config_key))) return library->library;
  } catch (const std::invalid_argument&) {
  }
  return "qtune";
}

// The best record of each kind of configuration per workload and target: the best overall is one
// of them, the others are what a process that cannot or may not run it runs instead
// (Runtime::State::other_kinds).
std::vector<TunedConfig> best_of_each_kind(const std::vector<records::MeasurementRecord>& records) {
  std::vector<TunedConfig> entries;
  for (const records::KindRecord& k : records::select_best_of_each_kind(records, candidate_kind_of)) {
    const records::MeasurementRecord& m = k.best;
    entries.push_back({m.workload_key, m.target_key, m.config_key, m.stats ? m.stats->median_ns : 0.0});
  }
  return entries;
}

// Keeps `entry` in `others` unless an entry of its kind there is as fast (then replaces none).
void keep_best_of_kind(std::vector<TunedEntry>& others, TunedEntry entry) {
  const auto same = std::find_if(others.begin(), others.end(), [&](const TunedEntry& e) { return e.kind == entry.kind; });
  if (same == others.end()) {
    others.push_back(std::move(entry));
  } else if (entry.median_ns < same->median_ns) {
    *same = std::move(entry);
  }
}

// A block's entry (block_workload.h): the fastest of its kind, fused or the layers one by one.
void keep_block(Runtime::State& state, const TunedConfig& e, std::size_t index) {
  const std::string where = "tuned entry " + std::to_string(index + 1) + " (block '" + e.workload_key + "')";
  BlockConfig config;
  try {
    const BlockWorkload block = BlockWorkload::parse_key(e.workload_key);
    config = BlockConfig::parse(e.config_key, block.members.size());
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(where + ": " + error.what());
  }
  TunedBlock& block = state.blocks[e.workload_key];
  std::optional<TunedBlockConfig>& kept = config.fused ? block.fused : block.unfused;
  if (!kept || e.median_ns < kept->median_ns) kept = TunedBlockConfig{e.config_key, e.median_ns};
}

}  // namespace

void Runtime::State::warn_once(const std::string& cause, const std::string& message) const {
  WarningSink to_call;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned_causes.insert(cause).second) return;
    to_call = sink;
  }
  // Outside the lock: a sink may take its time or call back into the runtime.
  if (to_call) to_call(message);
}

void Runtime::State::record(const Selection& selection) const {
  if (!selection.fell_back()) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!fallback_workloads.insert(selection.workload_key).second) return;
  fallbacks.push_back({selection.workload_key, selection.config_key, selection.reason});
}

Runtime::Runtime(RuntimeOptions options) : state_(empty_state(options)) {}
Runtime::Runtime(std::shared_ptr<State> state) : state_(std::move(state)) {}
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;
Runtime::~Runtime() = default;

namespace {

// This process's target when some entry was tuned for it, else its nearest compatible target
// among the entries' (said once through the sink), else this process's own (nothing applies).
void choose_target(Runtime::State& state, const std::vector<TunedConfig>& entries) {
  std::vector<std::string> keys;
  for (const TunedConfig& e : entries) {
    if (e.target_key == state.target_key) return;
    if (std::find(keys.begin(), keys.end(), e.target_key) == keys.end()) keys.push_back(e.target_key);
  }
  const auto neighbour = nearest_compatible_target(current_target(), keys);
  if (!neighbour) return;
  state.target_key = neighbour->key;
  state.target_differences = neighbour->describe();
  state.warn_once("target", "nothing was tuned for this process's exact target; using the tuning of the nearest "
                            "compatible target (" + state.target_differences + "): " + state.target_key);
}

}  // namespace

Runtime Runtime::from_entries(const std::vector<TunedConfig>& entries, RuntimeOptions options) {
  const bool this_process = options.target_key.empty();
  auto state = empty_state(options);
  if (this_process) choose_target(*state, entries);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].target_key != state->target_key) {
      state->other_target_workloads.emplace(entries[i].target_key, entries[i].workload_key);
      continue;
    }
    if (is_block_key(entries[i].workload_key)) {
      keep_block(*state, entries[i], i);
      continue;
    }
    TunedEntry entry = parse_entry(entries[i], i);
    auto [it, inserted] = state->by_lookup_key.emplace(entry.lookup_key, state->entries.size());
    if (!inserted) {
      // Two spellings of one workload, an "all measurements" log, or the best of another kind:
      // the faster one is the workload's entry, the other stays the best of its kind.
      TunedEntry& kept = state->entries[it->second];
      if (entry.median_ns < kept.median_ns) std::swap(kept, entry);
      keep_best_of_kind(state->other_kinds[kept.lookup_key], std::move(entry));
      continue;
    }
    state->by_family[family_key(entry.workload)].push_back(state->entries.size());
    state->entries.push_back(std::move(entry));
  }
  // Each workload's other kinds: none of the best entry's kind, fastest first.
  for (auto& [key, others] : state->other_kinds) {
    const std::string& best_kind = state->entries[state->by_lookup_key.at(key)].kind;
    std::erase_if(others, [&](const TunedEntry& e) { return e.kind == best_kind; });
    std::sort(others.begin(), others.end(),
              [](const TunedEntry& a, const TunedEntry& b) { return a.median_ns < b.median_ns; });
  }
  return Runtime(std::move(state));
}

namespace {

// The one path of a database and a log: the best of each kind among the correct measurements (a
// log of `qtune export --all` holds every measurement, and gets the database's choice).
Runtime from_records(const records::TuningRecords& records, RuntimeOptions options) {
  records::MeasurementFilter correct;
  correct.correct_only = true;
  return Runtime::from_entries(best_of_each_kind(records.measurements(correct)), std::move(options));
}

}  // namespace

Runtime Runtime::from_database(const std::string& path, RuntimeOptions options) {
  return from_records(records::TuningDb::open(path, records::OpenMode::read_only, search_space_validators()),
                      std::move(options));
}

Runtime Runtime::from_log(const std::string& path, RuntimeOptions options) {
  return from_records(records::TuningLog::open(path, search_space_validators()), std::move(options));
}

Runtime Runtime::from_file(const std::string& path, RuntimeOptions options) {
  return from_records(*records::open_tuning_records(path, search_space_validators()), std::move(options));
}

const std::string& Runtime::target_key() const { return state_->target_key; }
const std::string& Runtime::target_differences() const { return state_->target_differences; }
std::size_t Runtime::tuned_workloads() const { return state_->entries.size(); }
std::size_t Runtime::tuned_blocks() const { return state_->blocks.size(); }

std::optional<std::string> Runtime::tuned_block(const std::string& block_key) const {
  const auto it = state_->blocks.find(block_key);
  if (it == state_->blocks.end()) return std::nullopt;
  const TunedBlock& b = it->second;
  if (b.fused && (!b.unfused || fused_block_pays(b.fused->median_ns, b.unfused->median_ns))) return b.fused->config_key;
  if (b.unfused) return b.unfused->config_key;
  return std::nullopt;
}

std::size_t Runtime::other_target_workloads() const { return state_->other_target_workloads.size(); }

void Runtime::set_warning_sink(WarningSink sink) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->sink = sink ? std::move(sink) : stderr_warning_sink();
}

std::vector<FallbackEntry> Runtime::fallbacks() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return {state_->fallbacks.begin(), state_->fallbacks.end()};
}

std::size_t Runtime::fallback_count() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->fallbacks.size();
}

FallbackEntry Runtime::fallback(std::size_t index) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->fallbacks.at(index);
}

}  // namespace qtune::runtime
