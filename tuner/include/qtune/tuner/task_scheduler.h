// Shares a session's trial budget among its layers the way Ansor's gradient-based task scheduler
// does: after one warm-up round each, the next round goes to the task whose round is expected to
// reduce the network's total time (sum of count x best time) the most. The estimate mixes how fast
// the task improved over its last rounds with an optimistic guess bounded by what similar tasks
// already reach, so a layer that dominates the network and still improves gets the trials, and a
// converged or negligible layer does not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace qtune {

struct ScheduledTask {
  double weight = 1;   // runs per network inference (identical layers merged: their count)
  double gop = 0;      // work of one run in GOP, to compare throughputs of similar tasks
  std::string group;   // tasks of one group (same operator) bound each other's reachable speed
};

struct SchedulerOptions {
  double alpha = 0.2;                // weight of the observed improvement rate vs the forward guess
  double beta = 2.0;                 // similar-task bound: beta x work / best throughput in the group
  std::size_t backward_window = 3;   // rounds over which the observed improvement rate is taken
  double epsilon = 0.05;             // probability of giving the round to a random live task
  std::uint64_t seed = 1;
};

class TaskScheduler {
 public:
  explicit TaskScheduler(std::vector<ScheduledTask> tasks, SchedulerOptions options = {});

  // The task for the next round: first every task once in order (warm-up), then the one with the
  // most negative gradient. nullopt when every task is finished.
  std::optional<std::size_t> next();

  // After a round of `task`: its best time per run so far in seconds (infinity while nothing has
  // succeeded: such a task is estimated at the slowest throughput seen anywhere, i.e. it matters).
  void record_round(std::size_t task, double best_seconds);
  void finish(std::size_t task);  // exhausted, stopped early, or out of its own budget
  bool finished(std::size_t task) const { return tasks_.at(task).finished; }
  std::size_t rounds(std::size_t task) const { return tasks_.at(task).history.size(); }
  std::size_t size() const { return tasks_.size(); }

  // Estimated change of the weighted total time per extra round of `task` (negative is good).
  double gradient(std::size_t task) const;

 private:
  struct State {
    ScheduledTask info;
    std::vector<double> history;  // best seconds after each of its rounds (estimated while failing)
    bool finished = false;
  };
  double current_best(const State& s) const;

  std::vector<State> tasks_;
  SchedulerOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace qtune
