// What has been measured for one task (one workload on one target): every configuration tried and
// its throughput, or that it failed. Strategies read it to avoid repeats and to learn.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "qtune/search_space/knob_space.h"

namespace qtune {

struct Observation {
  Config config;
  // Measured GOP/s; nullopt when the configuration failed (wrong result, crash, timeout). Failures
  // stay in the history so that they are never proposed again.
  std::optional<double> gops;
};

class TrialHistory {
 public:
  // Adds a measurement; measuring the same configuration again replaces the earlier result.
  void add(Config config, std::optional<double> gops);

  bool contains(const Config& config) const { return contains(config.key()); }
  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  const std::vector<Observation>& observations() const { return observations_; }
  std::size_t size() const { return observations_.size(); }
  bool empty() const { return observations_.empty(); }

  // The fastest successful observation, nullptr when nothing has succeeded yet.
  const Observation* best() const;
  std::size_t successes() const;

 private:
  std::vector<Observation> observations_;
  std::unordered_map<std::string, std::size_t> index_;  // config key -> position
};

}  // namespace qtune
