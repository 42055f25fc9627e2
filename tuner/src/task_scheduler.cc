#include "qtune/tuner/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qtune {

TaskScheduler::TaskScheduler(std::vector<ScheduledTask> tasks, SchedulerOptions options)
    : options_(options), rng_(options.seed) {
  for (auto& t : tasks) {
    if (!(t.weight > 0)) throw std::invalid_argument("task scheduler: a task weight must be positive");
    tasks_.push_back(State{std::move(t), {}, false});
  }
}

std::optional<std::size_t> TaskScheduler::next() {
  std::vector<std::size_t> live;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (!tasks_[i].finished) live.push_back(i);
  }
  if (live.empty()) return std::nullopt;
  for (auto i : live) {
    if (tasks_[i].history.empty()) return i;
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (live.size() > 1 && unit(rng_) < options_.epsilon) return live[static_cast<std::size_t>(rng_() % live.size())];
  std::size_t best = live.front();
  double best_gradient = gradient(best);
  for (auto i : live) {
    const double g = gradient(i);
    if (g < best_gradient) {
      best = i;
      best_gradient = g;
    }
  }
  return best;
}

double TaskScheduler::current_best(const State& s) const {
  return s.history.empty() ? std::numeric_limits<double>::infinity() : s.history.back();
}

void TaskScheduler::record_round(std::size_t task, double best_seconds) {
  State& s = tasks_.at(task);
  if (!std::isfinite(best_seconds) || best_seconds <= 0) {
    // Nothing succeeded yet: assume the slowest throughput any task reached (or 1 GOP/s), so an
    // unresolved layer looks important rather than free.
    double slowest_gops = 0;
    for (const auto& t : tasks_) {
      if (!t.history.empty() && std::isfinite(t.history.back()) && t.history.back() > 0 && t.info.gop > 0) {
        const double gops = t.info.gop / t.history.back();
        slowest_gops = slowest_gops == 0 ? gops : std::min(slowest_gops, gops);
      }
    }
    if (slowest_gops == 0) slowest_gops = 1;
    best_seconds = std::max(s.info.gop, 1e-9) / slowest_gops;
    if (!s.history.empty()) best_seconds = std::max(best_seconds, s.history.back());
  }
  s.history.push_back(best_seconds);
}

void TaskScheduler::finish(std::size_t task) { tasks_.at(task).finished = true; }

double TaskScheduler::gradient(std::size_t task) const {
  const State& s = tasks_.at(task);
  const std::size_t rounds = s.history.size();
  if (rounds == 0) return -std::numeric_limits<double>::infinity();
  const double best = current_best(s);
  const std::size_t window = std::max<std::size_t>(options_.backward_window, 1);

  // What the last rounds achieved per round.
  double backward = 0;
  if (rounds > window) backward = (s.history[rounds - 1] - s.history[rounds - 1 - window]) / static_cast<double>(window);

  // Optimistic: another round helps as much as the average round so far (best / rounds), but not
  // beyond beta times what the best similar task's throughput would give this task's work.
  const double by_rounds = best - best / static_cast<double>(rounds);
  double by_similar = std::numeric_limits<double>::infinity();
  if (!s.info.group.empty() && s.info.gop > 0) {
    double best_throughput = 0;
    std::size_t members = 0;
    for (const auto& t : tasks_) {
      if (t.info.group != s.info.group || t.history.empty() || !(t.info.gop > 0)) continue;
      ++members;
      best_throughput = std::max(best_throughput, t.info.gop / t.history.back());
    }
    if (members > 1 && best_throughput > 0) by_similar = options_.beta * s.info.gop / best_throughput;
  }
  const double forward = std::min(by_rounds, by_similar) - best;
  return s.info.weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

}  // namespace qtune
