// What a Runtime holds: the tuned table (immutable after loading, so lookups need no lock) and the
// mutable warning / fallback bookkeeping (under a mutex). Internal.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "qtune/runtime/runtime.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime {

struct TunedEntry {
  Workload workload;
  std::string lookup_key;  // lookup_key(workload)
  Config config;           // parsed against full_space(workload.op)
  double median_ns = 0;
  std::string kind;        // "qtune" for qtune's kernels, else the library (to_library_config)
};

// A block's tuned configurations (qtune/search_space/block_workload.h), kept as their keys (the
// executor that runs the block parses them): the fastest fused one and the layers one by one.
struct TunedBlockConfig {
  std::string config_key;
  double median_ns = 0;
};
struct TunedBlock {
  std::optional<TunedBlockConfig> fused, unfused;
};

struct Runtime::State {
  // --- immutable after loading ---------------------------------------------------------------
  std::string target_key;
  std::string target_differences;  // from this process's target, when a neighbour's is used
  std::vector<TunedEntry> entries;
  std::unordered_map<std::string, std::size_t> by_lookup_key;               // -> entries index
  std::unordered_map<std::string, std::vector<std::size_t>> by_family;      // family_key -> indices
  std::unordered_map<std::string, TunedBlock> blocks;                       // block key -> its best
  // Per lookup key, the best entry of each kind other than the best entry's, fastest first: what
  // the layer runs when its best cannot run here (a library left out by QTUNE_LIBRARIES or
  // missing from this build, a foreign instruction set), before any neighbour's configuration.
  std::unordered_map<std::string, std::vector<TunedEntry>> other_kinds;
  // Each (target, workload) of another target that has entries: counted once however many kinds
  // of configuration it has (a database gives the best of each kind).
  std::set<std::pair<std::string, std::string>> other_target_workloads;

  // --- mutable, guarded by mutex ---------------------------------------------------------------
  mutable std::mutex mutex;
  WarningSink sink;
  mutable std::set<std::string> warned_causes;
  mutable std::deque<FallbackEntry> fallbacks;  // append-only: element addresses stay valid
  mutable std::unordered_set<std::string> fallback_workloads;

  // Sends `message` to the sink unless `cause` was already reported by this runtime.
  void warn_once(const std::string& cause, const std::string& message) const;
  // Adds the layer to the fallback report (once per workload) when it fell back.
  void record(const Selection& selection) const;
};

}  // namespace qtune::runtime
