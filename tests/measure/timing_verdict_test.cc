// The verdict rule of every comparison table (qtune/measure/timing_verdict.h) on synthetic timings:
// a difference counts only when the quartiles are apart and the medians differ by more than the
// minimum effect.
#include <gtest/gtest.h>

#include "qtune/measure/timing_verdict.h"

namespace qtune {
namespace {

// A timing with its median at `median_ns` and quartiles `half_spread` (a share of it) either side.
CaseTiming timing(double median_ns, double half_spread, int repetitions = 10) {
  return {median_ns, median_ns * (1 - half_spread), median_ns * (1 + half_spread), repetitions};
}

TEST(TimingVerdict, EqualMediansAreTheSame) {
  EXPECT_EQ(verdict(timing(1000, 0.01), timing(1000, 0.01)), "same");
  EXPECT_EQ(verdict(timing(1000, 0), timing(1000, 0)), "same");
}

TEST(TimingVerdict, OverlappingQuartilesAreTheSameHoweverFarTheMedians) {
  // 20% apart, but each case's quartiles reach into the other's.
  EXPECT_EQ(verdict(timing(1000, 0.15), timing(1200, 0.15)), "same");
  EXPECT_EQ(verdict(timing(1200, 0.15), timing(1000, 0.15)), "same");
}

TEST(TimingVerdict, OnePercentApartWithTightQuartilesIsTheSame) {
  // Quartiles 0.1% either side: apart, yet the difference is below the minimum effect.
  EXPECT_EQ(verdict(timing(1000, 0.001), timing(1010, 0.001)), "same");
  EXPECT_EQ(verdict(timing(1010, 0.001), timing(1000, 0.001)), "same");
}

TEST(TimingVerdict, TenPercentApartIsFasterOrSlower) {
  EXPECT_EQ(verdict(timing(1000, 0.01), timing(1100, 0.01)), "faster");
  EXPECT_EQ(verdict(timing(1100, 0.01), timing(1000, 0.01)), "slower");
}

TEST(TimingVerdict, TheMinimumEffectIsTheFloorOrTheWiderRelativeSpread) {
  EXPECT_DOUBLE_EQ(minimum_effect(timing(1000, 0.001), timing(1000, 0.002)), kMinimumEffect);
  // A 10% interquartile range (5% either side) of one case raises the bar to 10%.
  EXPECT_NEAR(minimum_effect(timing(1000, 0.001), timing(1000, 0.05)), 0.10, 1e-12);
  // Quartiles apart (1000 +- 1% vs 1080 +- 5%: 1010 < 1026) but 8% < the 10% range: same.
  EXPECT_EQ(verdict(timing(1000, 0.01), timing(1080, 0.05)), "same");
  EXPECT_EQ(verdict(timing(1000, 0.01), timing(1150, 0.05)), "faster");
}

TEST(TimingVerdict, JustAboveAndBelowTheFloor) {
  // Quartiles tight: the floor decides (kMinimumEffect).
  EXPECT_EQ(verdict(timing(1000, 0.001), timing(1000 * (1 + kMinimumEffect) - 1, 0.001)), "same");
  EXPECT_EQ(verdict(timing(1000, 0.001), timing(1000 * (1 + kMinimumEffect) + 1, 0.001)), "faster");
}

TEST(TimingVerdict, TooFewRepetitionsHaveNoVerdict) {
  EXPECT_EQ(verdict(timing(1000, 0.01, 2), timing(2000, 0.01)), "-");
  EXPECT_EQ(verdict(timing(1000, 0.01), timing(2000, 0.01, 1)), "-");
  EXPECT_EQ(verdict(timing(1000, 0.01, 3), timing(2000, 0.01, 3)), "faster");
  EXPECT_EQ(verdict(CaseTiming{}, CaseTiming{}), "-");
}

TEST(TimingVerdict, CloseCallsAreWithinHalfAndTwiceTheMinimumEffectOrNoisy) {
  // Tight quartiles: the minimum effect is the 5% floor, so close calls are 2.5% to 10% apart, in
  // either direction.
  EXPECT_FALSE(close_call(timing(1000, 0.001), timing(1020, 0.001)));
  EXPECT_TRUE(close_call(timing(1000, 0.001), timing(1030, 0.001)));
  EXPECT_TRUE(close_call(timing(1000, 0.001), timing(1050, 0.001)));
  EXPECT_TRUE(close_call(timing(1095, 0.001), timing(1000, 0.001)));
  EXPECT_FALSE(close_call(timing(1000, 0.001), timing(1110, 0.001)));
  EXPECT_FALSE(close_call(timing(1000, 0.001), timing(1000, 0.001)));
  // A spread wider than the floor (here a 20% interquartile range) makes any pair a close call:
  // the minimum effect then comes from this sample's noise.
  EXPECT_TRUE(close_call(timing(1000, 0.10), timing(1150, 0.001)));
  EXPECT_TRUE(close_call(timing(1000, 0.001), timing(1500, 0.10)));
  EXPECT_TRUE(close_call(timing(1000, 0.10), timing(1000, 0.001)));
  EXPECT_FALSE(close_call(timing(1000, 0.001), timing(0, 0.001)));
}

TEST(TimingVerdict, ARecordedVerdictStandsWhileTheSampleAgreesWithIt) {
  // 4.9% apart here: "same" on this sample alone; "faster" where the record says 5.1%, "same" where
  // it says 4.9%.
  const CaseTiming fast = timing(1000, 0.001), slow = timing(1049, 0.001);
  EXPECT_EQ(verdict(fast, slow), "same");
  EXPECT_EQ(anchored_verdict(fast, slow, 1.051), "faster");
  EXPECT_EQ(anchored_verdict(fast, slow, 1.049), "same");
  EXPECT_EQ(anchored_verdict(fast, slow, std::nullopt), "same");
  // 5.1% apart here, 4.9% on record: "same" (within twice the floor of the record's "same").
  EXPECT_EQ(verdict(timing(1000, 0.001), timing(1051, 0.001)), "faster");
  EXPECT_EQ(anchored_verdict(timing(1000, 0.001), timing(1051, 0.001), 1.049), "same");
  // Slower, mirrored.
  EXPECT_EQ(anchored_verdict(timing(1049, 0.001), timing(1000, 0.001), 1 / 1.051), "slower");
  EXPECT_EQ(anchored_verdict(timing(1049, 0.001), timing(1000, 0.001), 1 / 1.049), "same");
}

TEST(TimingVerdict, ASampleThatDisagreesWithTheRecordHasItsOwnVerdict) {
  // On record 20% faster, here the same: this sample's "same", not the record's "faster".
  EXPECT_EQ(anchored_verdict(timing(1000, 0.001), timing(1010, 0.001), 1.2), "same");
  // On record the same, here 15% faster: "faster".
  EXPECT_EQ(anchored_verdict(timing(1000, 0.001), timing(1150, 0.001), 1.0), "faster");
  // On record faster, here slower.
  EXPECT_EQ(anchored_verdict(timing(1150, 0.001), timing(1000, 0.001), 1.2), "slower");
  // Too few repetitions: no verdict, whatever the record.
  EXPECT_EQ(anchored_verdict(timing(1000, 0.001, 2), timing(1100, 0.001, 2), 1.1), "-");
}

TEST(TimingVerdict, CaseTimingIsMedianAndQuartiles) {
  const CaseTiming t = case_timing({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(t.median_ns, 3);
  EXPECT_DOUBLE_EQ(t.low_ns, 2);
  EXPECT_DOUBLE_EQ(t.high_ns, 4);
  EXPECT_EQ(t.repetitions, 5);
  EXPECT_EQ(case_timing({}).repetitions, 0);
}

}  // namespace
}  // namespace qtune
