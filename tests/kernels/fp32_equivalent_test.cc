// fp32_equivalent_scale: a scale it returns reproduces the integer mode for every accumulator that
// matters (checked here by brute force over the whole unclamped range and beyond, independently of
// the threshold proof it uses), it finds one for most single-rounding scales, and it refuses what
// its proof does not cover. RequantPlan::make uses it only when asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "requantize/fp32_equivalent.h"
#include "requantize/requant_plan.h"

namespace qtune::detail {
namespace {

std::int32_t integer_mode(RoundingMode mode, std::int32_t x, FixedPointMultiplier f, std::int32_t lo, std::int32_t hi) {
  const int l = f.shift > 0 ? f.shift : 0, r = f.shift < 0 ? -f.shift : 0, s = 31 - f.shift;
  std::int64_t v = 0;
  switch (mode) {
    case RoundingMode::tflite: v = scalar::tflite(x, f.multiplier, l, r); break;
    case RoundingMode::arm: v = scalar::arm(x, f.multiplier, l, r); break;
    case RoundingMode::upward: v = scalar::upward(x, f.multiplier, s); break;
    case RoundingMode::tonearest: v = scalar::tonearest(x, f.multiplier, s); break;
    case RoundingMode::fp32: ADD_FAILURE() << "no integer mode"; break;
  }
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, lo, hi));
}

// Every accumulator from below the lowest crossing to above the highest (capped at 2^22 values,
// the rest sampled), the int32 limits, and random accumulators: where the fp32 form differs, the
// first such accumulator.
std::optional<std::int64_t> first_difference(RoundingMode mode, FixedPointMultiplier f, float scale, std::int32_t lo,
                                             std::int32_t hi, std::uint64_t seed) {
  const auto differs = [&](std::int64_t x) {
    const auto x32 = static_cast<std::int32_t>(x);
    return scalar::fp32(x32, scale, static_cast<float>(lo), static_cast<float>(hi)) !=
           integer_mode(mode, x32, f, lo, hi);
  };
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min(), kMax = std::numeric_limits<std::int32_t>::max();
  const double real = std::ldexp(static_cast<double>(f.multiplier), f.shift - 31);
  const std::int64_t first = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor((lo - 1) / real)) - 16, kMin, kMax);
  const std::int64_t last = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil((hi + 1) / real)) + 16, kMin, kMax);
  const std::int64_t step = std::max<std::int64_t>(1, (last - first) >> 22);
  for (std::int64_t x = first; x <= last; x += step) {
    if (differs(x)) return x;
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t x = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
    if (differs(x)) return x;
  }
  for (const std::int64_t x : {kMin, kMin + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, kMax - 1, kMax}) {
    if (differs(x)) return x;
  }
  return std::nullopt;
}

struct Range {
  std::int32_t lo, hi;
};

TEST(Fp32Equivalent, AScaleItFindsGivesTheIntegerModesResultsAndMostSingleRoundingScalesHaveOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_scale(std::log(1e-4), std::log(0.49));
  // int8 and uint8 outputs with their zero points, a relu6-like narrow range.
  const Range ranges[] = {{-128, 127}, {-117, 138}, {0, 60}};
  for (const RoundingMode mode : {RoundingMode::upward, RoundingMode::tonearest}) {
    int found = 0, tried = 0;
    for (int i = 0; i < 60; ++i) {
      const double real = std::exp(log_scale(rng));
      const FixedPointMultiplier f = quantize_multiplier(real);
      for (const Range& range : ranges) {
        ++tried;
        const std::optional<float> scale = fp32_equivalent_scale(mode, f, range.lo, range.hi);
        if (!scale) continue;
        ++found;
        const std::optional<std::int64_t> x = first_difference(mode, f, *scale, range.lo, range.hi, rng());
        ASSERT_FALSE(x.has_value()) << to_string(mode) << " scale " << real << " (M " << f.multiplier << ", e "
                                    << f.shift << ") range [" << range.lo << ", " << range.hi << "]: fp32 scale "
                                    << *scale << " differs at accumulator " << *x;
      }
    }
    EXPECT_GT(found, tried / 2) << to_string(mode) << ": " << found << " of " << tried << " scales have an fp32 form";
  }
}

TEST(Fp32Equivalent, TfliteWithoutShiftAndExactPowersOfTwo) {
  // e = 0 (scales in [0.5, 1)): one rounding, so tflite and arm can have one.
  for (const RoundingMode mode : {RoundingMode::tflite, RoundingMode::arm, RoundingMode::upward}) {
    for (const double real : {0.5, 0.75, 0.6180339887, 0.99999994}) {
      const FixedPointMultiplier f = quantize_multiplier(real);
      ASSERT_EQ(f.shift, 0);
      const std::optional<float> scale = fp32_equivalent_scale(mode, f, -128, 127);
      if (!scale) continue;  // allowed; but what it returns must be right
      const std::optional<std::int64_t> x = first_difference(mode, f, *scale, -128, 127, 3);
      EXPECT_FALSE(x.has_value()) << to_string(mode) << " " << real << ": differs at " << *x;
    }
  }
  // 0.5 exactly: every odd accumulator is a tie, which fp32 breaks to even; upward breaks it up,
  // so no scale can reproduce it (the proof must see the ties, not only the slopes).
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::upward, quantize_multiplier(0.5), -128, 127).has_value());
}

TEST(Fp32Equivalent, RefusesWhatItsProofDoesNotCover) {
  const FixedPointMultiplier typical = quantize_multiplier(0.0123);  // e < 0: tflite rounds twice
  ASSERT_LT(typical.shift, 0);
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::tflite, typical, -128, 127).has_value());
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::arm, typical, -128, 127).has_value());
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::fp32, typical, -128, 127).has_value());
  const FixedPointMultiplier left = quantize_multiplier(3.0);  // e > 0: x << l wraps
  ASSERT_GT(left.shift, 0);
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::tflite, left, -128, 127).has_value());
  EXPECT_FALSE(fp32_equivalent_scale(RoundingMode::upward, quantize_multiplier(0.0), -128, 127).has_value());
}

TEST(Fp32Equivalent, PlansTakeTheFp32FormOnlyWhenAskedAndWhenEveryChannelHasOne) {
  // 0.0123 has an upward fp32 form for an int8 range (checked by the first test's brute force).
  const RequantParams one = RequantParams::make(RoundingMode::upward, {0.0123}, 0, -128, 127);
  ASSERT_TRUE(fp32_equivalent_scale(RoundingMode::upward, one.fixed[0], -128, 127).has_value());
  const RequantPlan own = RequantPlan::make(one);
  EXPECT_EQ(own.mode, RoundingMode::upward);
  EXPECT_FALSE(own.fp32_equivalent_of.has_value());
  const RequantPlan fast = RequantPlan::make(one, true);
  EXPECT_EQ(fast.mode, RoundingMode::fp32);
  EXPECT_EQ(fast.fp32_equivalent_of, RoundingMode::upward);
  for (std::size_t i = 0; i < fast.scale.size(); ++i) {
    EXPECT_EQ(fast.scale[i], *fp32_equivalent_scale(RoundingMode::upward, one.fixed[0], -128, 127)) << "copy " << i;
  }
  // One channel without an fp32 form (0.5: ties) keeps the whole plan in its integer mode.
  const RequantParams mixed = RequantParams::make(RoundingMode::upward, {0.0123, 0.5, 0.0123}, 0, -128, 127);
  const RequantPlan kept = RequantPlan::make(mixed, true);
  EXPECT_EQ(kept.mode, RoundingMode::upward);
  EXPECT_FALSE(kept.fp32_equivalent_of.has_value());
}

}  // namespace
}  // namespace qtune::detail
