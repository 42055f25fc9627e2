#include "qtune/evaluation/interleaved_timing.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace qtune::evaluation {
namespace {

using Clock = std::chrono::steady_clock;

// How long the thread runtimes get to go idle between their turns (time_interleaved_samples).
constexpr auto kSettle = std::chrono::milliseconds(50);

// How long a runtime runs its cases after the pause before its turn is timed: the pause lets the
// cores slow down, and two repetitions right after every pause timed MobileNetV2 at 2-4 times its
// time (`qtune run --threads 2`).
constexpr auto kTurnWarmUp = std::chrono::milliseconds(20);

// Nanoseconds of `calls` calls: back to back when warm, each timed after its eviction when cold.
double time_calls(const TimedCase& c, int calls, CacheState cache) {
  if (cache == CacheState::cold) {
    double seconds = 0;
    for (int i = 0; i < calls; ++i) seconds += time_one_call(c.run, CacheState::cold);
    return seconds * 1e9;
  }
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) c.run();
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

}  // namespace

std::vector<std::vector<double>> time_interleaved_samples(const std::vector<TimedCase>& cases, int repetitions,
                                                          unsigned seed, int threads, CacheState cache) {
  std::vector<int> calls(cases.size(), 0);
  std::vector<std::vector<double>> per_call(cases.size());
  std::mt19937 rng(seed);
  // The groups timed one after another: every case together on one thread, else one per runtime.
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const int runtime = threads > 1 ? cases[i].runtime : 0;
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return (threads > 1 ? cases[g.front()].runtime : 0) == runtime; });
    if (group == groups.end()) {
      groups.push_back({i});
    } else {
      group->push_back(i);
    }
  }
  // The runtimes take their turns in one random order, the same in every round, so that no
  // runtime has two turns in a row: a slow spell longer than a turn reaches both alike.
  std::shuffle(groups.begin(), groups.end(), rng);
  const int turns = groups.size() > 1 ? std::clamp(repetitions, 1, kTurnsPerRuntime) : 1;
  for (int turn = 0; turn < turns; ++turn) {
    const int turn_repetitions = repetitions * (turn + 1) / turns - repetitions * turn / turns;
    for (auto& order : groups) {
      // Before each runtime's turn, the other's workers finish spinning (libgomp spins about
      // 300,000 pause instructions, some 10 ms, after each parallel region) on the cores this turn
      // needs.
      if (groups.size() > 1) std::this_thread::sleep_for(kSettle);
      // The warm-up, within the turn: after the pause this runtime's workers sleep, the caches hold
      // the other runtime's data and the cores have slowed down; a calibration while the other's
      // workers still spun would take calls for slower than they are. The first turn calibrates.
      const auto warm_up_start = Clock::now();
      for (std::size_t i : order) {
        const double fastest =
            std::min({time_calls(cases[i], 1, cache), time_calls(cases[i], 1, cache), time_calls(cases[i], 1, cache)});
        if (calls[i] == 0) calls[i] = calls_per_repetition(fastest * 1e-9, 2e-3, cache);
      }
      if (groups.size() > 1 && cache == CacheState::warm) {
        while (Clock::now() - warm_up_start < kTurnWarmUp) {
          for (std::size_t i : order) time_calls(cases[i], calls[i], cache);
        }
      }
      for (int r = 0; r < turn_repetitions; ++r) {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) per_call[i].push_back(time_calls(cases[i], calls[i], cache) / calls[i]);
      }
    }
  }
  return per_call;
}

}  // namespace qtune::evaluation
