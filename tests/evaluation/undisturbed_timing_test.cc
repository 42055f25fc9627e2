// qtune run's re-timing of a disturbed layer (qtune/evaluation/undisturbed_timing.h), driven through its seams:
// the run-queue wait is scripted, so "disturbed" does not depend on the machine.
#include <gtest/gtest.h>

#include <deque>
#include <optional>

#include "qtune/evaluation/undisturbed_timing.h"

namespace qtune::evaluation {
namespace {

// Each attempt returns one case timed at `median_ns` = its attempt number and takes 1 ms of the
// fake clock; the wait read before and after an attempt grows by the scripted amount (ns).
struct Script {
  std::deque<double> waits;
  double waited = 0;
  bool reading_after = false;
  int attempts = 0;
  double now = 0;
  std::vector<CaseTiming> timed() {
    ++attempts;
    now += 1e6;
    return {CaseTiming{static_cast<double>(attempts), 0, 0, 3}};
  }
  std::optional<double> wait() {
    if (reading_after) {
      waited += waits.empty() ? 0.0 : waits.front();
      if (!waits.empty()) waits.pop_front();
    }
    reading_after = !reading_after;
    return waited;
  }
};

UndisturbedTiming run(Script& s, int retries = 2) {
  return time_undisturbed([&] { return s.timed(); }, 0.05, retries, {[&] { return s.wait(); }, [&] { return s.now; }});
}

TEST(UndisturbedTiming, QuietTimingIsKeptAtOnce) {
  Script s{{0.0}};
  const auto kept = run(s);
  EXPECT_EQ(s.attempts, 1);
  EXPECT_EQ(kept.retimed, 0);
  EXPECT_FALSE(kept.disturbed);
  EXPECT_EQ(kept.waiting_share, 0.0);
}

TEST(UndisturbedTiming, DisturbedTimingIsTimedAgainUntilQuiet) {
  Script s{{5e5, 0.0}};  // half the attempt's millisecond waited
  const auto kept = run(s);
  EXPECT_EQ(s.attempts, 2);
  EXPECT_EQ(kept.retimed, 1);
  EXPECT_FALSE(kept.disturbed);
  EXPECT_EQ(kept.timings.at(0).median_ns, 2);  // the quiet attempt's
}

TEST(UndisturbedTiming, RetriesAreBoundedAndTheLeastDisturbedIsKept) {
  Script s{{5e5, 1e5, 9e5}};
  const auto kept = run(s);
  EXPECT_EQ(s.attempts, 3);
  EXPECT_EQ(kept.retimed, 2);
  EXPECT_TRUE(kept.disturbed);
  EXPECT_EQ(kept.timings.at(0).median_ns, 2);  // waited 0.1 of the time, the others 0.5 and 0.9
  EXPECT_DOUBLE_EQ(*kept.waiting_share, 0.1);
}

TEST(UndisturbedTiming, WithoutSchedulerStatisticsNothingIsDisturbed) {
  int attempts = 0;
  const auto kept = time_undisturbed(
      [&] {
        ++attempts;
        return std::vector<CaseTiming>{CaseTiming{1, 0, 0, 3}};
      },
      0.05, 2, {[] { return std::optional<double>(); }, [] { return 0.0; }});
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(kept.waiting_share.has_value());
  EXPECT_FALSE(kept.disturbed);
}

}  // namespace
}  // namespace qtune::evaluation
