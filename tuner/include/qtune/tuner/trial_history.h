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
  // The configuration's GOP/s: its median measurement as records/best_selection.h defines it (the
  // lower median of the times), over the successful measurements (the undisturbed ones when it has
  // any); nullopt when none succeeded
  // (wrong result, crash, timeout). Failures stay in the history so that they are never proposed
  // again.
  std::optional<double> gops;
};

class TrialHistory {
 public:
  // Adds a measurement (nullopt: it failed); a configuration measured again keeps every sample.
  // `disturbed`: kept although the machine was busy (records::MeasurementRecord::disturbed).
  void add(Config config, std::optional<double> gops, bool disturbed = false);
  // Successful measurements of the configuration so far.
  std::size_t samples(const Config& config) const;

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
  struct Sample {
    double gops;
    bool disturbed;
  };
  std::vector<std::vector<Sample>> samples_;            // per observation: successful ones, in order
  std::unordered_map<std::string, std::size_t> index_;  // config key -> position
};

}  // namespace qtune
