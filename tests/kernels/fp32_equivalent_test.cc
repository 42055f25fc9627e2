// fp32_equivalent: a form it returns reproduces the integer mode for every accumulator that
// matters (checked here by brute force over the whole unclamped range and beyond, independently of
// the threshold proof it uses), it finds one for most scales of upward, tonearest and tflite, and
// it refuses what its proof does not cover. RequantPlan::make uses it only when asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
std::optional<std::int64_t> first_difference(RoundingMode mode, FixedPointMultiplier f, Fp32Form form, std::int32_t lo,
                                             std::int32_t hi, std::uint64_t seed) {
  const auto differs = [&](std::int64_t x) {
    const auto x32 = static_cast<std::int32_t>(x);
    const float lo_f = static_cast<float>(lo), hi_f = static_cast<float>(hi);
    const std::int32_t fp = form.offset == 0.0f ? scalar::fp32(x32, form.scale, lo_f, hi_f)
                                                : scalar::fp32_offset(x32, form.scale, form.offset, lo_f, hi_f);
    return fp != integer_mode(mode, x32, f, lo, hi);
  };
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  const double real = std::ldexp(static_cast<double>(f.multiplier), f.shift - 31);
  const auto at = [](double x) {
    return static_cast<std::int64_t>(std::clamp(x, static_cast<double>(kMin), static_cast<double>(kMax)));
  };
  const std::int64_t first = at(std::floor((lo - 1) / real) - 16), last = at(std::ceil((hi + 1) / real) + 16);
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

TEST(Fp32Equivalent, AFormItFindsGivesTheIntegerModesResultsAndMostScalesHaveOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_scale(std::log(1e-4), std::log(0.49));
  // int8 and uint8 outputs with their zero points, a relu6-like narrow range.
  const Range ranges[] = {{-128, 127}, {-117, 138}, {0, 60}};
  for (const RoundingMode mode : {RoundingMode::upward, RoundingMode::tonearest, RoundingMode::tflite}) {
    int found = 0, tried = 0, with_offset = 0;
    for (int i = 0; i < 60; ++i) {
      const double real = std::exp(log_scale(rng));
      const FixedPointMultiplier f = quantize_multiplier(real);
      for (const Range& range : ranges) {
        ++tried;
        const std::optional<Fp32Form> form = fp32_equivalent(mode, f, range.lo, range.hi);
        if (!form) continue;
        ++found;
        // tflite below 0.5 always needs an offset; single roundings take one only where no plain
        // scale works.
        if (mode == RoundingMode::tflite) {
          ASSERT_NE(form->offset, 0.0f) << "scale " << real;
        }
        with_offset += form->offset != 0.0f;
        const std::optional<std::int64_t> x = first_difference(mode, f, *form, range.lo, range.hi, rng());
        ASSERT_FALSE(x.has_value()) << to_string(mode) << " scale " << real << " (M " << f.multiplier << ", e "
                                    << f.shift << ") range [" << range.lo << ", " << range.hi << "]: fp32 scale "
                                    << form->scale << " offset " << form->offset << " differs at accumulator " << *x;
      }
    }
    EXPECT_GT(found, tried / 2) << to_string(mode) << ": " << found << " of " << tried << " scales have an fp32 form";
    // The offset in the middle of the exact interval rescues single roundings where no plain scale
    // works (small scales, where an accumulator lands within fma's rounding error of a boundary).
    if (mode != RoundingMode::tflite) {
      EXPECT_GT(with_offset, 0) << to_string(mode);
    }
    std::printf("%s: %d of %d scales have an fp32 form, %d with an offset\n", std::string(to_string(mode)).c_str(),
                found, tried, with_offset);
  }
}

TEST(Fp32Equivalent, ScalesWithoutShiftAndExactPowersOfTwo) {
  // e = 0 (scales in [0.5, 1)): one rounding, so tflite and arm can have a plain fp32 form.
  for (const RoundingMode mode : {RoundingMode::tflite, RoundingMode::arm, RoundingMode::upward}) {
    for (const double real : {0.5, 0.75, 0.6180339887, 0.99999994}) {
      const FixedPointMultiplier f = quantize_multiplier(real);
      ASSERT_EQ(f.shift, 0);
      const std::optional<Fp32Form> form = fp32_equivalent(mode, f, -128, 127);
      if (!form) continue;  // allowed; but what it returns must be right
      EXPECT_EQ(form->offset, 0.0f);
      const std::optional<std::int64_t> x = first_difference(mode, f, *form, -128, 127, 3);
      EXPECT_FALSE(x.has_value()) << to_string(mode) << " " << real << ": differs at " << *x;
    }
  }
  // 0.5 exactly: every odd accumulator is a tie, which fp32 breaks to even; upward breaks it up,
  // so no scale can reproduce it (the proof must see the ties, not only the slopes).
  EXPECT_FALSE(fp32_equivalent(RoundingMode::upward, quantize_multiplier(0.5), -128, 127).has_value());
}

TEST(Fp32Equivalent, RefusesWhatItsProofDoesNotCover) {
  const FixedPointMultiplier typical = quantize_multiplier(0.0123);
  ASSERT_LT(typical.shift, 0);
  EXPECT_FALSE(fp32_equivalent(RoundingMode::arm, typical, -128, 127).has_value());  // would need an unsigned offset
  EXPECT_FALSE(fp32_equivalent(RoundingMode::fp32, typical, -128, 127).has_value());
  const FixedPointMultiplier left = quantize_multiplier(3.0);  // e > 0: x << l wraps
  ASSERT_GT(left.shift, 0);
  EXPECT_FALSE(fp32_equivalent(RoundingMode::tflite, left, -128, 127).has_value());
  EXPECT_FALSE(fp32_equivalent(RoundingMode::upward, quantize_multiplier(0.0), -128, 127).has_value());
}

// The first scale from 1e-3 upward (in steps of 1.3%) that has a form for `mode` and the int8 range.
double scale_with_form(RoundingMode mode) {
  for (double s = 1e-3; s < 0.5; s *= 1.013) {
    if (fp32_equivalent(mode, quantize_multiplier(s), -128, 127)) return s;
  }
  ADD_FAILURE() << "no scale in [1e-3, 0.5) has an fp32 form for " << to_string(mode);
  return 0.0;
}

TEST(Fp32Equivalent, PlansTakeTheFloatFormOnlyWhenAskedAndWhenEveryChannelHasOne) {
  for (const RoundingMode mode : {RoundingMode::upward, RoundingMode::tflite}) {
    const double real = scale_with_form(mode);
    const RequantParams one = RequantParams::make(mode, {real}, 0, -128, 127);
    const Fp32Form form = *fp32_equivalent(mode, one.fixed[0], -128, 127);
    const RequantPlan own = RequantPlan::make(one);
    EXPECT_EQ(own.mode, mode);
    EXPECT_FALSE(own.fp32_equivalent_of.has_value());
    const RequantPlan fast = RequantPlan::make(one, true);
    EXPECT_EQ(fast.mode, mode == RoundingMode::tflite ? kFp32Offset : RoundingMode::fp32) << to_string(mode);
    EXPECT_EQ(fast.fp32_equivalent_of, mode);
    for (std::size_t i = 0; i < RequantPlan::kMaxLanes; ++i) {
      EXPECT_EQ(fast.scale[i], form.scale) << "copy " << i;
      EXPECT_EQ(fast.fp32_offset[i], form.offset) << "copy " << i;
    }
    // One channel without a form (0.5 in upward: ties; 3.0: a left shift) keeps the whole plan in
    // its integer mode.
    const RequantParams mixed = RequantParams::make(mode, {real, mode == RoundingMode::upward ? 0.5 : 3.0, real}, 0,
                                                    -128, 127);
    const RequantPlan kept = RequantPlan::make(mixed, true);
    EXPECT_EQ(kept.mode, mode);
    EXPECT_FALSE(kept.fp32_equivalent_of.has_value());
  }
}

}  // namespace
}  // namespace qtune::detail
