// RequantPlan::product_never_ties is exact: where it is set, tonearest and upward agree on every
// int32 accumulator (the Arm epilogues then run tonearest as upward); where it is not, some channel
// has an accumulator whose product ties and on which the two modes differ. Checked by brute force
// on crafted and random accumulators, independently of the trailing-zero argument the plan uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <bit>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "qtune/kernels/quant.h"
#include "quant/requant_plan.h"

namespace qtune::detail {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();

// An accumulator whose product with f's multiplier ties at f's shift (its lowest set bit at
// 2^(s-1)), negative, so that tonearest rounds it away from upward; none when no int32 value can.
std::optional<std::int32_t> tying_accumulator(FixedPointMultiplier f) {
  if (f.multiplier == 0) return std::nullopt;
  const int s = 31 - f.shift;
  const int zeros = std::countr_zero(static_cast<std::uint32_t>(f.multiplier));
  const int needed = s - 1 - zeros;  // trailing zeros the accumulator must bring
  if (needed < 0 || needed > 31) return std::nullopt;
  return static_cast<std::int32_t>(-(std::int64_t{1} << needed));
}

bool modes_agree(FixedPointMultiplier f, std::int64_t acc) {
  const auto x = static_cast<std::int32_t>(acc);
  const int s = 31 - f.shift;
  return scalar::tonearest(x, f.multiplier, s) == scalar::upward(x, f.multiplier, s);
}

// Every channel of `scales` checked against the plan's verdict.
void expect_verdict_exact(const std::vector<double>& scales, std::mt19937& rng) {
  const RequantParams params = RequantParams::make(RoundingMode::tonearest, scales, 0, -128, 127);
  const RequantPlan plan = RequantPlan::make(params);
  bool some_tie = false;
  for (const FixedPointMultiplier& f : params.fixed) {
    const std::optional<std::int32_t> tie = tying_accumulator(f);
    if (tie) {
      EXPECT_FALSE(modes_agree(f, *tie)) << "M " << f.multiplier << " e " << f.shift << " acc " << *tie;
      some_tie = true;
      continue;
    }
    std::uniform_int_distribution<std::int64_t> any(kMin, kMax);
    for (std::int64_t acc : {kMin, kMin + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, kMax}) {
      ASSERT_TRUE(modes_agree(f, acc)) << "M " << f.multiplier << " e " << f.shift << " acc " << acc;
    }
    for (int shift = 0; shift < 31; ++shift) {
      for (std::int64_t sign : {-1, 1}) {
        const std::int64_t acc = sign * (std::int64_t{1} << shift) * (2 * (any(rng) & 0xff) + 1);
        if (acc < kMin || acc > kMax) continue;
        ASSERT_TRUE(modes_agree(f, acc)) << "M " << f.multiplier << " e " << f.shift << " acc " << acc;
      }
    }
    for (int i = 0; i < 20000; ++i) ASSERT_TRUE(modes_agree(f, any(rng)));
  }
  EXPECT_EQ(plan.product_never_ties, !some_tie) << "first scale " << scales.front();
  EXPECT_EQ(plan.constants().product_never_ties, plan.product_never_ties);
}

TEST(RequantPlanTies, TheVerdictIsExactOverTrainedAndPowerOfTwoScales) {
  std::mt19937 rng(53);
  // Trained layers' scales: no tie, the short form.
  std::uniform_real_distribution<double> trained(1e-4, 0.2);
  for (int i = 0; i < 200; ++i) expect_verdict_exact({trained(rng)}, rng);
  // Powers of two and scales near them: M with many trailing zeros, ties in reach.
  for (int k = -40; k <= 4; ++k) {
    expect_verdict_exact({std::ldexp(1.0, k)}, rng);
    expect_verdict_exact({std::ldexp(1.5, k)}, rng);
    expect_verdict_exact({std::ldexp(1.0 + 1.0 / 1024, k)}, rng);
  }
  // Scales of 1/2 and more: s <= 31, every one can tie.
  for (double scale : {0.5, 0.75, 1.0, 3.0, 100.0}) expect_verdict_exact({scale}, rng);
}

TEST(RequantPlanTies, OneChannelThatCanTieDecidesForThePlan) {
  std::mt19937 rng(56);
  expect_verdict_exact({0.0123, 0.0456, 0.0789}, rng);
  expect_verdict_exact({0.0123, 0.125, 0.0789}, rng);  // 1/8: M = 2^30, s = 34 < 33 + 30
  expect_verdict_exact({0.0123, 0.0, 0.0789}, rng);    // a zero scale never ties
  const RequantParams with_eighth = RequantParams::make(RoundingMode::tonearest, {0.0123, 0.125}, 0, -128, 127);
  EXPECT_FALSE(RequantPlan::make(with_eighth).product_never_ties);
  const RequantParams trained = RequantParams::make(RoundingMode::tonearest, {0.0123, 0.0456}, 0, -128, 127);
  EXPECT_TRUE(RequantPlan::make(trained).product_never_ties);
}

}  // namespace
}  // namespace qtune::detail
