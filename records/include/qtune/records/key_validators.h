// How records checks keys without knowing kernels: whoever opens a database or a log gives the
// validators (qtune's own: runtime/key_validators.h, from search_space). Each throws an exception
// whose what() says why the key is bad. Empty validators (opaque_keys) accept any non-empty key as
// it is.
#pragma once

#include <functional>
#include <string>

#include "qtune/records/measurement.h"

namespace qtune::records {

struct KeyValidators {
  // Checks a workload key and describes it (op, gops, description).
  std::function<WorkloadSummary(const std::string& key)> workload;
  // Checks a target key.
  std::function<void(const std::string& key)> target;
  // Checks a configuration key for a (valid) workload (knobs and values of the workload's op) and
  // returns its canonical spelling, which differs from the key only where the key was written
  // before a knob existed (the knob's default is then spelled out). Readers adopt it, so a
  // configuration has one identity across qtune versions.
  std::function<std::string(const std::string& workload_key, const std::string& config_key)> config;
  // The same for a configuration as it ran (a network run's row): besides every key `config`
  // accepts, the runtime's heuristic default of an untuned layer, whose blocking values lie off
  // the searchable grid. Unset: `config` checks those rows too.
  std::function<std::string(const std::string& workload_key, const std::string& config_key)> run_config;
};

// Validators that accept any non-empty key as it is and describe it from the key alone: for rows
// copied exactly as they were recorded (the source of a merge) and for data whose keys are not
// search_space's (the tests of records itself).
inline KeyValidators opaque_keys() { return {}; }

// The summary records can give without validators: op = text before ':' of the key.
WorkloadSummary default_workload_summary(const std::string& key);
// arch / cpu taken from the key's "arch=" / "cpu=" fields (';'-separated), when present.
TargetSummary default_target_summary(const std::string& key);

}  // namespace qtune::records
