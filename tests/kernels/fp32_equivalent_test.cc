// fp32_equivalent: a form it returns reproduces the integer mode for every accumulator that
// matters (checked here by brute force over the whole unclamped range and beyond, independently of
// the threshold proof it uses), it finds one for most scales of upward, tonearest and tflite (the
// centred forms for a fused ReLU's [0, 255]), and it refuses what its proof does not cover.
// RequantPlan::make uses it only when asked, the centred forms only for directed rounding.
// scalar::fp32_centred's floor is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "qtune/kernels/requantize.h"
#include "quant/fp32_equivalent.h"
#include "quant/requant_plan.h"

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
    const std::int32_t fp =
        form.centre != 0
            ? scalar::fp32_centred(x32, form.scale, form.origin, form.offset, lo - form.centre, hi - form.centre) +
                  form.centre
        : form.offset == 0.0f ? scalar::fp32(x32, form.scale, lo_f, hi_f)
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

// A fused ReLU's uint8 clamp [0, 255] (zero point 0) at the small scales of TFLite's MobileNetV2:
// the uncentred forms lose most of them, the centred ones keep nearly all, and every centred form
// is exact.
TEST(Fp32Equivalent, CentredFormsKeepTheScalesOfAFusedRelu) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> log_scale(std::log(6e-4), std::log(1.5e-3));
  EXPECT_EQ(float_centre(0, 255), 128);
  EXPECT_EQ(float_centre(-128, 127), 0);
  EXPECT_EQ(float_centre(-200, 55), 0);
  for (const RoundingMode mode : {RoundingMode::tflite, RoundingMode::upward}) {
    int uncentred = 0, centred = 0;
    constexpr int kTried = 60;
    for (int i = 0; i < kTried; ++i) {
      const double real = std::exp(log_scale(rng));
      const FixedPointMultiplier f = quantize_multiplier(real);
      uncentred += fp32_equivalent(mode, f, 0, 255).has_value();
      const std::optional<Fp32Form> form = fp32_equivalent(mode, f, 0, 255, Centring::centred);
      if (!form) continue;
      ++centred;
      ASSERT_EQ(form->centre, 128);
      ASSERT_EQ(form->origin, std::nearbyint(form->origin)) << "the origin is an accumulator";
      const std::optional<std::int64_t> x = first_difference(mode, f, *form, 0, 255, rng());
      ASSERT_FALSE(x.has_value()) << to_string(mode) << " scale " << real << ": centred form (scale " << form->scale
                                  << ", origin " << form->origin << ", addend " << form->offset
                                  << ") differs at accumulator " << *x;
    }
    std::printf("%s in [0, 255]: %d of %d scales have an uncentred form, %d a centred one\n",
                std::string(to_string(mode)).c_str(), uncentred, kTried, centred);
    EXPECT_GE(centred, kTried * 9 / 10) << to_string(mode);
    EXPECT_GT(centred, uncentred) << to_string(mode);
  }
  // A centred range has no centred form (the uncentred ones are those).
  EXPECT_FALSE(fp32_equivalent(RoundingMode::upward, quantize_multiplier(1e-3), -128, 127, Centring::centred));
}

// floor(t * scale + addend) exactly, from integers: t, scale and addend as multiples of 2^-60.
std::int64_t exact_floor(float t, float scale, float addend) {
  const auto fixed = [](float v) { return static_cast<__int128>(std::ldexp(static_cast<long double>(v), 60)); };
  const __int128 t_int = static_cast<__int128>(t);  // an integer below 2^24
  const __int128 sum = t_int * fixed(scale) + fixed(addend);
  const __int128 one = static_cast<__int128>(1) << 60;
  return static_cast<std::int64_t>(sum >= 0 ? sum / one : -((-sum + one - 1) / one));
}

TEST(Fp32Equivalent, TheCentredFloorIsExactWhereTheDoubleSumIsAnInteger) {
  std::mt19937_64 rng(5);
  int near_integer = 0;
  for (int i = 0; i < 200000; ++i) {
    const float t = static_cast<float>(static_cast<std::int32_t>(rng() % (1u << 20)) - (1 << 19));
    const float scale = std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) / 0x1p23f, -10 - static_cast<int>(rng() % 8));
    // Half the addends put the sum just below, on or just above an integer.
    float addend = std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng() % (1u << 24)) - (1 << 23)), -24);
    if (i % 2 == 0) {
      const long double product = static_cast<long double>(t) * scale;
      addend = static_cast<float>(std::floor(product) + 1 - product);  // rounded: either side of the integer
      if (!(std::fabs(addend) >= 0x1p-16f)) continue;  // keep every value a multiple of 2^-60
      ++near_integer;
    }
    const std::int64_t want = std::clamp<std::int64_t>(exact_floor(t, scale, addend), -1000000, 1000000);
    // origin 0: t is the accumulator itself.
    const std::int32_t got = scalar::fp32_centred(static_cast<std::int32_t>(t), scale, 0.0f, addend, -1000000, 1000000);
    ASSERT_EQ(got, want) << "t " << t << " scale " << scale << " addend " << addend;
  }
  EXPECT_GT(near_integer, 50000);
  // An integer product and an addend of a few bits far below it: the double sum rounds onto the
  // integer (from below for a negative addend), which the floor must see through.
  for (const float t : {1.0f, 3.0f, 1024.0f, 98304.0f, -4096.0f, -7.0f}) {
    for (int e = 0; e <= 10; e += 5) {
      const float scale = std::ldexp(1.0f, -e);
      if (std::fmod(t, std::ldexp(1.0f, e)) != 0.0f) continue;  // keep the product an integer
      for (int j = 1; j <= 60; ++j) {
        for (const float bits : {1.0f, -1.0f, -1.5f, 1.0000001f, -1.0000001f}) {
          const float addend = std::ldexp(bits, -j);
          const std::int32_t got =
              scalar::fp32_centred(static_cast<std::int32_t>(t), scale, 0.0f, addend, -1000000, 1000000);
          ASSERT_EQ(got, exact_floor(t, scale, addend)) << "t " << t << " scale " << scale << " addend " << addend;
        }
      }
    }
  }
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
    const RequantPlan fast = RequantPlan::make(one, FloatForms::round_to_nearest);
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
    const RequantPlan kept = RequantPlan::make(mixed, FloatForms::directed_rounding);
    EXPECT_EQ(kept.mode, mode);
    EXPECT_FALSE(kept.fp32_equivalent_of.has_value());
  }
}

// A fused ReLU at a scale whose only form is centred: kFp32Centred where directed rounding is
// admitted (its constants moved by the centre), arm (tflite's equivalent there) otherwise.
TEST(Fp32Equivalent, PlansTakeTheCentredFormOnlyWithDirectedRounding) {
  double real = 0.0;
  for (double s = 8e-4; s < 2e-3 && real == 0.0; s *= 1.007) {
    const FixedPointMultiplier f = quantize_multiplier(s);
    if (!fp32_equivalent(RoundingMode::tflite, f, 0, 255) &&
        fp32_equivalent(RoundingMode::tflite, f, 0, 255, Centring::centred)) {
      real = s;
    }
  }
  ASSERT_NE(real, 0.0) << "no scale in [8e-4, 2e-3) has a centred form only";
  const RequantParams relu = RequantParams::make(RoundingMode::tflite, {real}, 0, 0, 255);
  const RequantPlan nearest = RequantPlan::make(relu, FloatForms::round_to_nearest);
  EXPECT_EQ(nearest.mode, RoundingMode::arm);
  EXPECT_EQ(nearest.float_centre, 0);
  const RequantPlan directed = RequantPlan::make(relu, FloatForms::directed_rounding);
  ASSERT_EQ(directed.mode, kFp32Centred);
  EXPECT_EQ(directed.fp32_equivalent_of, RoundingMode::tflite);
  EXPECT_EQ(directed.float_centre, 128);
  EXPECT_EQ(directed.lo, 0);  // the plan's own bounds are unchanged
  const RequantConstants c = directed.constants();
  EXPECT_EQ(c.lo, -128);
  EXPECT_EQ(c.hi, 127);
  EXPECT_EQ(c.zero_point, 128);
  for (const std::int32_t acc : {-100000, -1, 0, 1, 575, 576, 577, 100000, 286000, 287000, INT32_MAX, INT32_MIN}) {
    EXPECT_EQ(requantize_scalar<kFp32Centred>(acc, c, 0), requantize_reference(acc, relu, 0)) << "acc " << acc;
  }
}

}  // namespace
}  // namespace qtune::detail
