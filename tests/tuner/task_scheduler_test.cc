// The task scheduler: warm-up for every task, then rounds where they reduce the total most.
#include <gtest/gtest.h>

#include <cmath>

#include "qtune/tuner/task_scheduler.h"

namespace qtune {
namespace {

// Each task improves the same way with its rounds: time = base * (0.5 + 0.5 / sqrt(rounds)).
double simulated_time(double base, std::size_t rounds) {
  return base * (0.5 + 0.5 / std::sqrt(static_cast<double>(rounds)));
}

std::vector<std::size_t> allocate(std::vector<ScheduledTask> tasks, const std::vector<double>& base, int total) {
  TaskScheduler scheduler(tasks);
  std::vector<std::size_t> rounds(tasks.size());
  for (int r = 0; r < total; ++r) {
    auto t = scheduler.next();
    if (!t) break;
    ++rounds[*t];
    scheduler.record_round(*t, simulated_time(base[*t], rounds[*t]));
  }
  return rounds;
}

TEST(TaskScheduler, WarmsUpEveryTaskOnceInOrder) {
  TaskScheduler scheduler({{1, 1, "gemm"}, {1, 1, "gemm"}, {1, 1, "conv2d"}});
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(scheduler.next(), i);
    scheduler.record_round(i, 1.0);
  }
}

TEST(TaskScheduler, GivesMoreRoundsToTheLayerThatDominatesLatency) {
  // Layer 0 occurs 10 times and each run takes 4x longer than layer 1's: 40x the share of time.
  const auto rounds = allocate({{10, 8, "gemm"}, {1, 2, "gemm"}}, {4e-3, 1e-3}, 40);
  EXPECT_GT(rounds[0], 3 * rounds[1]) << rounds[0] << " vs " << rounds[1];
  EXPECT_GE(rounds[1], 1u);  // still warmed up
}

TEST(TaskScheduler, EqualLayersShareEvenly) {
  const auto rounds = allocate({{1, 1, "gemm"}, {1, 1, "gemm"}}, {1e-3, 1e-3}, 40);
  EXPECT_NEAR(static_cast<double>(rounds[0]), static_cast<double>(rounds[1]), 8.0);
}

TEST(TaskScheduler, SkipsFinishedTasksAndEndsWhenAllAreFinished) {
  TaskScheduler scheduler({{10, 1, "gemm"}, {1, 1, "gemm"}});
  scheduler.record_round(*scheduler.next(), 1.0);
  scheduler.record_round(*scheduler.next(), 1.0);
  scheduler.finish(0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(scheduler.next(), 1u);
  scheduler.finish(1);
  EXPECT_FALSE(scheduler.next().has_value());
}

TEST(TaskScheduler, ALayerThatStoppedImprovingLosesItsTurn) {
  // Layer 0 is bigger but converged (flat over many rounds); layer 1 is still improving fast.
  TaskScheduler scheduler({{1, 4, "gemm"}, {1, 1, "gemm"}});
  scheduler.record_round(*scheduler.next(), 2e-3);
  scheduler.record_round(*scheduler.next(), 1.5e-3);
  for (int i = 0; i < 6; ++i) scheduler.record_round(0, 1.05e-3);  // converged near 1 ms...
  scheduler.record_round(1, 1.2e-3);
  scheduler.record_round(1, 0.9e-3);
  scheduler.record_round(1, 0.7e-3);                                // ...while layer 1 keeps halving
  EXPECT_LT(scheduler.gradient(1), scheduler.gradient(0));
}

TEST(TaskScheduler, RejectsNonPositiveWeights) {
  EXPECT_THROW(TaskScheduler({{0, 1, "gemm"}}), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
