// qtune run's timing at several placements in memory (qtune/evaluation/placement_timing.h): how placements are
// made, held and pooled, and how a placement's buffers are offset. Nothing here depends on how fast
// anything runs: the cases are empty and only the samples' count and the buffers are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <random>
#include <stdexcept>
#include <vector>

#include "qtune/evaluation/placement_timing.h"

namespace qtune::evaluation {
namespace {

TEST(PlacementTiming, OnePlacementPerRepetitionUpToTheLimitThenShared) {
  const auto share = [](int repetitions) {
    const PlacementShare s = share_among_placements(repetitions);
    return std::pair{s.placements, s.repetitions_each};
  };
  EXPECT_EQ(share(1), std::pair(1, 1));  // one repetition: no spread, and no verdict
  EXPECT_EQ(share(5), std::pair(5, 1));
  EXPECT_EQ(share(kPlacements), std::pair(kPlacements, 1));
  EXPECT_EQ(share(kPlacements + 1), std::pair(kPlacements, 2));
  EXPECT_EQ(share(3 * kPlacements), std::pair(kPlacements, 3));
  EXPECT_GE(share_among_placements(10).samples(), 10);
}

// Each placement is made once, while every earlier one is still held (so that its allocations
// land elsewhere), and the samples of all placements are pooled per case.
TEST(PlacementTiming, EveryPlacementIsHeldUntilTheLastIsTimedAndSamplesArePooled) {
  auto live = std::make_shared<int>(0);
  int made = 0;
  std::vector<int> live_when_made;
  const auto place = [&] {
    live_when_made.push_back(*live);
    ++made;
    ++*live;
    // Released when the last copy of its cases goes.
    std::shared_ptr<int> token(new int(0), [live](int* p) {
      --*live;
      delete p;
    });
    return std::vector<TimedCase>{{[token] {}}, {[token] {}}};
  };
  const auto timings = time_at_placements(place, 3, 7, 1, CacheState::warm);
  EXPECT_EQ(made, 3);
  EXPECT_EQ(live_when_made, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*live, 0);  // all released once timed
  ASSERT_EQ(timings.size(), 2u);
  for (const auto& t : timings) EXPECT_EQ(t.repetitions, 3);
  made = 0;
  const auto more = time_at_placements(place, 2 * kPlacements + 1, 7, 1, CacheState::warm);
  EXPECT_EQ(made, kPlacements);
  for (const auto& t : more) EXPECT_EQ(t.repetitions, share_among_placements(2 * kPlacements + 1).samples());
}

TEST(PlacementTiming, PlacementsWithDifferentCasesAreRefused) {
  int made = 0;
  const auto place = [&] {
    ++made;
    return std::vector<TimedCase>(made == 1 ? 2 : 3, TimedCase{[] {}});
  };
  EXPECT_THROW(time_at_placements(place, 2, 1, 1, CacheState::warm), std::logic_error);
}

// A buffer holds its values at a cache-line offset below a page into its allocation, and the
// offsets differ between placements (a run of 16 buffers all at one offset would mean they do not).
TEST(PlacementTiming, PlacedBytesKeepTheirValuesAtVaryingCacheLineOffsets) {
  std::mt19937_64 rng(3);
  const std::vector<std::uint8_t> values{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<std::uintptr_t> offsets;
  for (int i = 0; i < 16; ++i) {
    const PlacedBytes placed(values, rng);
    ASSERT_EQ(placed.size(), values.size());
    EXPECT_EQ(std::vector<std::uint8_t>(placed.data(), placed.data() + placed.size()), values);
    const PlacedBytes zeros(values.size(), rng);
    EXPECT_EQ(std::vector<std::uint8_t>(zeros.data(), zeros.data() + zeros.size()), std::vector<std::uint8_t>(9, 0));
    EXPECT_FALSE(placed == zeros);
    EXPECT_TRUE(placed == PlacedBytes(values, rng));
    offsets.push_back(reinterpret_cast<std::uintptr_t>(placed.data()) % 4096);
  }
  std::sort(offsets.begin(), offsets.end());
  EXPECT_GT(std::unique(offsets.begin(), offsets.end()) - offsets.begin(), 1);
  EXPECT_FALSE(PlacedBytes(values, rng) == PlacedBytes(std::vector<std::uint8_t>(values.begin(), values.end() - 1), rng));
  const auto spacer = placement_spacer(rng);
  EXPECT_GE(spacer.size(), 64u);
  EXPECT_LE(spacer.size(), 4096u);
  EXPECT_EQ(spacer.size() % 64, 0u);
}

}  // namespace
}  // namespace qtune::evaluation
