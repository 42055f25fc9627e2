// quantize_multiplier(), RequantParams::make() validation and the name <-> enum conversions.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "qtune/kernels/quant.h"

namespace qtune {
namespace {

// TFLite QuantizeMultiplier written out directly (with the single-rounding clamp of e > 30).
FixedPointMultiplier direct_frexp(double scale) {
  if (scale == 0) return {0, 0};
  int e = 0;
  const double q = std::frexp(scale, &e);
  long long m = std::llround(q * 2147483648.0);
  if (m == 2147483648LL) {
    m = 1073741824LL;
    e += 1;
  }
  if (e < -31) return {0, 0};
  if (e > 30) return {2147483647, 30};
  return {static_cast<std::int32_t>(m), e};
}

TEST(QuantizeMultiplier, MatchesDirectFrexpOnRandomScales) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int i = 0; i < 200000; ++i) {
    const double scale = std::ldexp(mantissa(rng), exponent(rng));
    const FixedPointMultiplier f = quantize_multiplier(scale);
    ASSERT_EQ(f, direct_frexp(scale)) << "scale " << scale;
    if (f.multiplier != 0 && f.shift < 30) {
      EXPECT_GE(f.multiplier, 1 << 30);
      // S = M * 2^(e-31) within half an ulp of the 31-bit multiplier.
      EXPECT_NEAR(std::ldexp(static_cast<double>(f.multiplier), f.shift - 31), scale, std::ldexp(1.0, f.shift - 32));
    }
  }
}

TEST(QuantizeMultiplier, Corners) {
  EXPECT_EQ(quantize_multiplier(0.0), (FixedPointMultiplier{0, 0}));
  EXPECT_EQ(quantize_multiplier(-0.0), (FixedPointMultiplier{0, 0}));
  EXPECT_EQ(quantize_multiplier(1.0), (FixedPointMultiplier{1 << 30, 1}));
  EXPECT_EQ(quantize_multiplier(0.5), (FixedPointMultiplier{1 << 30, 0}));
  EXPECT_EQ(quantize_multiplier(0.25), (FixedPointMultiplier{1 << 30, -1}));
  // The largest double below 1: q * 2^31 rounds to 2^31, carried into the exponent.
  EXPECT_EQ(quantize_multiplier(std::nextafter(1.0, 0.0)), (FixedPointMultiplier{1 << 30, 1}));
  // Smallest representable: 2^-32 has e = -31 after frexp (q = 0.5).
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -32)), (FixedPointMultiplier{1 << 30, -31}));
  // Below it the exponent underflows to {0, 0}; so does a denormal.
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -33)), (FixedPointMultiplier{0, 0}));
  EXPECT_EQ(quantize_multiplier(std::numeric_limits<double>::denorm_min()), (FixedPointMultiplier{0, 0}));
  // A value that rounds up into 2^-32 at the carry: q just below 1 with e = -32.
  EXPECT_EQ(quantize_multiplier(std::nextafter(std::ldexp(1.0, -32), 0.0)), (FixedPointMultiplier{1 << 30, -31}));
  // Largest non-clamped: just below 2^30 -> e = 30.
  EXPECT_EQ(quantize_multiplier(std::ldexp(0.75, 30)), (FixedPointMultiplier{static_cast<std::int32_t>(0.75 * 2147483648.0), 30}));
  // Scales >= 2^30 clamp like single-rounding TFLite.
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, 30)), (FixedPointMultiplier{INT32_MAX, 30}));
  EXPECT_EQ(quantize_multiplier(1e300), (FixedPointMultiplier{INT32_MAX, 30}));
  EXPECT_EQ(quantize_multiplier(DBL_MAX), (FixedPointMultiplier{INT32_MAX, 30}));
}

TEST(QuantizeMultiplier, RejectsScalesWithoutFixedPointForm) {
  for (double bad : {-1.0, -1e-30, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    try {
      quantize_multiplier(bad);
      ADD_FAILURE() << "no InvalidScale for " << bad;
    } catch (const InvalidScale& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::isnan(bad) ? "nan" : (std::isinf(bad) ? "inf" : "-1")), std::string::npos) << what;
    }
  }
}

TEST(RequantParamsMake, FillsFixedAndFloatScales) {
  const RequantParams p = RequantParams::make(RoundingMode::upward, {0.25, 1e-3, 0.0, 1e300}, 3, -128, 127);
  ASSERT_EQ(p.channels(), 4u);
  EXPECT_TRUE(p.per_channel());
  EXPECT_EQ(p.mode, RoundingMode::upward);
  EXPECT_EQ(p.output_zero_point, 3);
  for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(p.fixed[c], quantize_multiplier(p.scales[c]));
  EXPECT_EQ(p.scales_f32[0], 0.25f);
  EXPECT_EQ(p.scales_f32[1], 1e-3f);
  EXPECT_EQ(p.scales_f32[2], 0.0f);
  EXPECT_EQ(p.scales_f32[3], FLT_MAX);  // saturated: 0 * scale stays 0
  EXPECT_FALSE(RequantParams::make(RoundingMode::fp32, {0.5}, 0, 0, 255).per_channel());
  // The zero point need not lie within [qmin, qmax] (e.g. a fused ReLU6 on u8 with zp 0 works anyway).
  EXPECT_NO_THROW(RequantParams::make(RoundingMode::tflite, {0.5}, 0, 10, 20));
}

TEST(RequantParamsMake, RejectsBadInputNamingIt) {
  auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {}, 0, -128, 127); }).find("scale"), std::string::npos);
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {0.5}, 0, 10, 5); }).find("qmin 10 > qmax 5"),
            std::string::npos);
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {0.5}, 0, -129, 5); }).find("qmin -129"),
            std::string::npos);
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {0.5}, 0, 0, 256); }).find("qmax 256"),
            std::string::npos);
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {0.5}, 300, 0, 255); }).find("zero point 300"),
            std::string::npos);
  EXPECT_NE(message([] { RequantParams::make(RoundingMode::tflite, {0.5, -2.0}, 0, 0, 255); }).find("scales[1]"),
            std::string::npos);
  EXPECT_THROW(RequantParams::make(RoundingMode::tflite, {0.5, std::nan("")}, 0, 0, 255), InvalidScale);
  EXPECT_THROW(RequantParams::make(static_cast<RoundingMode>(42), {0.5}, 0, 0, 255), std::invalid_argument);
}

TEST(QuantNames, RoundTrip) {
  const char* mode_names[] = {"tflite", "upward", "tonearest", "arm", "fp32"};
  for (std::size_t i = 0; i < kAllRoundingModes.size(); ++i) {
    EXPECT_EQ(to_string(kAllRoundingModes[i]), mode_names[i]);
    EXPECT_EQ(parse_rounding_mode(mode_names[i]), kAllRoundingModes[i]);
  }
  EXPECT_EQ(parse_rounding_mode("TFLite"), std::nullopt);
  EXPECT_EQ(parse_rounding_mode(""), std::nullopt);
  EXPECT_EQ(parse_dtype("u8"), DType::u8);
  EXPECT_EQ(parse_dtype("s8"), DType::s8);
  EXPECT_EQ(parse_dtype("s32"), DType::s32);
  EXPECT_EQ(parse_dtype("i8"), std::nullopt);
  for (DType t : {DType::u8, DType::s8, DType::s32}) EXPECT_EQ(parse_dtype(to_string(t)), t);
}

}  // namespace
}  // namespace qtune
