// The order in which qtune run times the cases of one layer (qtune/evaluation/interleaved_timing.h): with
// several threads, runtime by runtime in alternating turns; on one thread, all cases interleaved.
// Nothing here depends on how fast anything runs: only who ran when, and the samples' count.
#include <gtest/gtest.h>

#include <vector>

#include "qtune/evaluation/interleaved_timing.h"

namespace qtune::evaluation {
namespace {

// The runtimes of the calls, in order, with repeated calls of one runtime counted once.
struct TurnLog {
  std::vector<int> turns;
  void call(int runtime) {
    if (turns.empty() || turns.back() != runtime) turns.push_back(runtime);
  }
};

std::vector<TimedCase> cases_of(TurnLog& log, const std::vector<int>& runtimes) {
  std::vector<TimedCase> cases;
  for (int runtime : runtimes) cases.push_back({[&log, runtime] { log.call(runtime); }, runtime});
  return cases;
}

TEST(InterleavedTiming, SeveralThreadsAlternateTheRuntimesTurnsNeverTwoInARow) {
  for (unsigned seed : {1u, 2u, 3u}) {
    TurnLog log;
    const auto samples = time_interleaved_samples(cases_of(log, {0, 1, 0}), 10, seed, 2, CacheState::warm);
    ASSERT_EQ(samples.size(), 3u);
    for (const auto& s : samples) EXPECT_EQ(s.size(), 10u);  // every repetition, over all turns
    ASSERT_EQ(log.turns.size(), static_cast<std::size_t>(2 * kTurnsPerRuntime)) << "seed " << seed;
    for (std::size_t t = 2; t < log.turns.size(); ++t) EXPECT_EQ(log.turns[t], log.turns[t - 2]);
  }
}

TEST(InterleavedTiming, FewerRepetitionsThanTurnsTakeATurnEach) {
  TurnLog log;
  const auto samples = time_interleaved_samples(cases_of(log, {1, 0}), 2, 5, 2, CacheState::warm);
  for (const auto& s : samples) EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(log.turns.size(), 4u);
}

TEST(InterleavedTiming, OneThreadInterleavesEveryCaseWithoutTurns) {
  TurnLog log;
  const auto samples = time_interleaved_samples(cases_of(log, {0, 1}), 10, 1, 1, CacheState::warm);
  for (const auto& s : samples) EXPECT_EQ(s.size(), 10u);
  // Repetitions in a random order across both runtimes: far more changes than turns would make.
  EXPECT_GT(log.turns.size(), static_cast<std::size_t>(2 * kTurnsPerRuntime));
}

}  // namespace
}  // namespace qtune::evaluation
