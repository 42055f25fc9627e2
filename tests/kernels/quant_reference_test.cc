// The scalar reference of every rounding mode against independent definitions: gemmlowp's own
// fixed-point functions (tflite), exact 128-bit arithmetic of TVM's formulas (upward, tonearest),
// double arithmetic (fp32), and the worked examples of docs/requantization.md.
#include <gtest/gtest.h>
#include <gemmlowp/fixedpoint/fixedpoint.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "kernels/src/quant/requant_plan.h"
#include "qtune/kernels/quant.h"

namespace qtune {
namespace {

namespace sc = detail::scalar;

// Random inputs per shift: 10^6 normally; fewer under the sanitizers, never zero.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kInputsPerShift = 100000;
#else
constexpr int kInputsPerShift = 1000000;
#endif

std::int32_t random_multiplier(std::mt19937_64& rng) {
  return static_cast<std::int32_t>((1u << 30) + (rng() & ((1u << 30) - 1)));
}

// Full-range int32 values, and small values (whose results are not all clamped), alternating.
std::int32_t random_acc(std::mt19937_64& rng, int i) {
  const std::uint64_t bits = rng();
  if (i % 2 == 0) return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  const int width = static_cast<int>(bits >> 59);  // 0..31
  return static_cast<std::int32_t>(static_cast<std::int64_t>(bits & 0xFFFFFFFF) % (std::int64_t{1} << width) *
                                   ((bits >> 58) & 1 ? -1 : 1));
}

std::int32_t gemmlowp_tflite(std::int32_t acc, std::int32_t m, int e) {
  const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0;
  const std::int32_t x = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) << l);
  return gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(x, m), r);
}

TEST(RequantReference, TfliteBitExactWithGemmlowpOnEveryShift) {
  std::mt19937_64 rng(2024);
  for (int e = -31; e <= 30; ++e) {
    const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0;
    for (int i = 0; i < kInputsPerShift; ++i) {
      const std::int32_t acc = random_acc(rng, i);
      const std::int32_t m = random_multiplier(rng);
      const std::int64_t got = sc::tflite(acc, m, l, r);
      const std::int32_t want = gemmlowp_tflite(acc, m, e);
      if (got != want) {
        FAIL() << "acc " << acc << " M " << m << " e " << e << ": " << got << " != gemmlowp " << want;
      }
    }
  }
}

TEST(RequantReference, TfliteClampedReferenceMatchesGemmlowp) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int> zp_dist(-128, 255);
  for (int e = -31; e <= 30; ++e) {
    for (int i = 0; i < kInputsPerShift / 20; ++i) {
      const std::int32_t acc = random_acc(rng, i);
      const FixedPointMultiplier f{random_multiplier(rng), e};
      const std::int32_t zp = zp_dist(rng);
      const std::int64_t want = std::clamp<std::int64_t>(std::int64_t{gemmlowp_tflite(acc, f.multiplier, e)} + zp, -128, 255);
      ASSERT_EQ(requantize_reference(acc, f, 0.0f, RoundingMode::tflite, zp, -128, 255), want)
          << "acc " << acc << " M " << f.multiplier << " e " << e << " zp " << zp;
    }
  }
}

TEST(RequantReference, TfliteCorners) {
  const std::int32_t accs[] = {INT32_MIN, INT32_MIN + 1, -65536, -3, -2, -1, 0, 1, 2, 3, 65536, INT32_MAX - 1, INT32_MAX};
  const std::int32_t multipliers[] = {0, 1 << 30, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX, 1518500250};
  for (int e = -31; e <= 30; ++e) {
    const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0;
    for (std::int32_t m : multipliers) {
      for (std::int32_t acc : accs) {
        ASSERT_EQ(sc::tflite(acc, m, l, r), gemmlowp_tflite(acc, m, e)) << "acc " << acc << " M " << m << " e " << e;
      }
    }
  }
  // SRDHM's single saturating case, and gemmlowp's own ties.
  EXPECT_EQ(sc::srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
  EXPECT_EQ(sc::srdhm(INT32_MIN, INT32_MIN), gemmlowp::SaturatingRoundingDoublingHighMul(INT32_MIN, INT32_MIN));
  EXPECT_EQ(sc::srdhm(INT32_MAX, INT32_MIN), gemmlowp::SaturatingRoundingDoublingHighMul(INT32_MAX, INT32_MIN));
  // Exact ties of both signs at every r: x = (2k + 1) * 2^(r-1) -> away from zero.
  for (int r = 1; r <= 31; ++r) {
    for (std::int64_t k : {0, 1, 2, 5, -1, -2, -3, -6}) {
      const std::int64_t x64 = (2 * k + 1) * (std::int64_t{1} << (r - 1));
      if (x64 < INT32_MIN || x64 > INT32_MAX) continue;
      const auto x = static_cast<std::int32_t>(x64);
      const std::int32_t away = static_cast<std::int32_t>(k >= 0 ? k + 1 : k);
      EXPECT_EQ(sc::rdpot(x, r), away) << "x " << x << " r " << r;
      EXPECT_EQ(sc::rdpot(x, r), gemmlowp::RoundingDivideByPOT(x, r)) << "x " << x << " r " << r;
    }
  }
  // SRDHM ties: (a * 2^30) / 2^31 = a / 2 with a odd -> up (toward +inf), as gemmlowp.
  for (std::int32_t a : {1, -1, 3, -3, 12345, -12345}) {
    EXPECT_EQ(sc::srdhm(a, 1 << 30), gemmlowp::SaturatingRoundingDoublingHighMul(a, 1 << 30)) << a;
    EXPECT_EQ(sc::srdhm(a, 1 << 30), static_cast<std::int32_t>(std::floor((a + 1) / 2.0))) << a;
  }
}

// TVM's FixedPointMultiply (UPWARD) / FixedPointMultiplyToNearest computed exactly in 128 bits:
// v = (acc << l) * M, + 2^(r+30) (- 1 for negative v in TONEAREST), >> (r + 31). Returns false
// where TVM's own int64 arithmetic would overflow (the formula is then not defined by TVM).
bool tvm_formula(std::int32_t acc, std::int32_t m, int e, bool to_nearest, std::int64_t* out) {
  const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0;
  const __int128 v = (static_cast<__int128>(acc) << l) * m;
  const __int128 round = (static_cast<__int128>(1) << (r + 30)) - (to_nearest && v < 0 ? 1 : 0);
  const __int128 sum = v + round;
  if (v > INT64_MAX || v < INT64_MIN || sum > INT64_MAX || sum < INT64_MIN) return false;
  *out = static_cast<std::int64_t>(sum >> (r + 31));
  return true;
}

TEST(RequantReference, SingleRoundingMatchesTvmFormulaWhereItDoesNotOverflow) {
  std::mt19937_64 rng(5);
  std::int64_t compared = 0;
  for (int e = -31; e <= 30; ++e) {
    for (int i = 0; i < kInputsPerShift / 10; ++i) {
      const std::int32_t acc = random_acc(rng, i);
      const std::int32_t m = random_multiplier(rng);
      std::int64_t want = 0;
      if (tvm_formula(acc, m, e, false, &want)) {
        ASSERT_EQ(sc::upward(acc, m, 31 - e), want) << "acc " << acc << " M " << m << " e " << e;
        ++compared;
      }
      if (tvm_formula(acc, m, e, true, &want)) {
        ASSERT_EQ(sc::tonearest(acc, m, 31 - e), want) << "acc " << acc << " M " << m << " e " << e;
      }
    }
    // Exact ties of both signs: M = 2^30, acc = (2k+1) * 2^(r-1) gives a true value k + 1/2.
    if (e < 0) {
      for (std::int64_t k : {0, 3, -1, -4}) {
        const std::int64_t acc64 = (2 * k + 1) * (std::int64_t{1} << (-e - 1)) * 2;  // M = 2^30 halves it
        if (acc64 < INT32_MIN || acc64 > INT32_MAX) continue;
        const auto acc = static_cast<std::int32_t>(acc64);
        EXPECT_EQ(sc::upward(acc, 1 << 30, 31 - e), k + 1) << acc << " e " << e;
        EXPECT_EQ(sc::tonearest(acc, 1 << 30, 31 - e), k >= 0 ? k + 1 : k) << acc << " e " << e;
      }
    }
  }
  EXPECT_GT(compared, std::int64_t{62} * kInputsPerShift / 10 / 2);  // most inputs are comparable
}

TEST(RequantReference, SingleRoundingIsExactForPositiveShifts) {
  // e > 0: results beyond int32 stay exact in 64 bits and clamp correctly.
  EXPECT_EQ(sc::upward(INT32_MAX, INT32_MAX, 31 - 30), (std::int64_t{INT32_MAX} * INT32_MAX + (1 << 0)) >> 1);
  EXPECT_EQ(sc::upward(INT32_MIN, INT32_MAX, 1), (std::int64_t{INT32_MIN} * INT32_MAX + 1) >> 1);
  EXPECT_EQ(requantize_reference(INT32_MIN, {INT32_MAX, 30}, 0.0f, RoundingMode::upward, 5, -128, 127), -128);
  EXPECT_EQ(requantize_reference(INT32_MAX, {INT32_MAX, 30}, 0.0f, RoundingMode::tonearest, -5, -128, 127), 127);
  // tflite wraps the left shift like TFLite's scalar code: 2^30 << 1 wraps to INT32_MIN.
  EXPECT_EQ(sc::tflite(1 << 30, 1 << 30, 1, 0), sc::srdhm(INT32_MIN, 1 << 30));
}

TEST(RequantReference, ArmDiffersFromTfliteByAtMostOneUp) {
  std::mt19937_64 rng(11);
  std::int64_t differ = 0, total = 0;
  for (int e = -31; e <= 30; ++e) {
    const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0;
    for (int i = 0; i < kInputsPerShift / 10; ++i) {
      const std::int32_t acc = random_acc(rng, i);
      const std::int32_t m = random_multiplier(rng);
      const std::int64_t d = sc::arm(acc, m, l, r) - sc::tflite(acc, m, l, r);
      // The only difference: a negative exact tie in the second rounding (arm: up, tflite: away).
      ASSERT_TRUE(d == 0 || d == 1) << "acc " << acc << " M " << m << " e " << e << " diff " << d;
      differ += d;
      ++total;
    }
  }
  EXPECT_GT(differ, 0);
  EXPECT_LT(differ, total / 10);
  // And against an independent round-half-up of the SRDHM value.
  for (std::int32_t t : {-7, -6, -5, -2, -1, 0, 1, 2, 5, 6, INT32_MIN, INT32_MAX}) {
    for (int r = 0; r <= 31; ++r) {
      const std::int64_t want = r == 0 ? t : static_cast<std::int64_t>(std::floor((t + std::ldexp(1.0, r - 1)) / std::ldexp(1.0, r)));
      EXPECT_EQ(sc::rounding_shift_right_half_up(t, r), want) << t << " r " << r;
    }
  }
}

TEST(RequantReference, DoubleAndSingleRoundingDisagreementRates) {
  // The reference note's measurement: on random acc in +-2^20 the schemes differ in about 14.5% of
  // cases for e in [-3, -1], 0.3% for [-10, -6].
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int32_t> acc_dist(-(1 << 20), 1 << 20);
  auto rate = [&](int e_lo, int e_hi) {
    std::int64_t differ = 0, n = 0;
    for (int e = e_lo; e <= e_hi; ++e) {
      for (int i = 0; i < 100000; ++i) {
        const std::int32_t acc = acc_dist(rng), m = random_multiplier(rng);
        differ += sc::tflite(acc, m, 0, -e) != sc::upward(acc, m, 31 - e);
        ++n;
      }
    }
    return static_cast<double>(differ) / static_cast<double>(n);
  };
  EXPECT_NEAR(rate(-3, -1), 0.145, 0.02);
  EXPECT_NEAR(rate(-10, -6), 0.003, 0.0015);
}

// fp32 against double arithmetic: a float * float product is exact in double, so rounding it to
// float reproduces the single-precision multiply; then round half to even and clamp.
TEST(RequantReference, Fp32MatchesDoubleComputation) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> log_scale(-30, 4);
  std::uniform_int_distribution<int> zp_dist(-128, 255);
  for (int i = 0; i < kInputsPerShift; ++i) {
    const std::int32_t acc = random_acc(rng, i);
    const float scale = static_cast<float>(std::exp2(log_scale(rng)));
    const std::int32_t zp = zp_dist(rng);
    const double product = static_cast<double>(static_cast<float>(static_cast<double>(acc))) * scale;
    const double rounded = std::nearbyint(static_cast<double>(static_cast<float>(product)));
    const std::int64_t want = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::clamp(rounded, -1e12, 1e12)) + zp, -128, 255);
    ASSERT_EQ(requantize_reference(acc, FixedPointMultiplier{}, scale, RoundingMode::fp32, zp, -128, 255), want)
        << "acc " << acc << " scale " << scale << " zp " << zp;
  }
}

// docs/requantization.md, "Where they disagree".
TEST(RequantReference, WorkedExamples) {
  const FixedPointMultiplier quarter = quantize_multiplier(0.25);
  ASSERT_EQ(quarter, (FixedPointMultiplier{1 << 30, -1}));
  auto run = [&](std::int32_t acc, RoundingMode mode) {
    return requantize_reference(acc, quarter, 0.25f, mode, 0, -128, 127);
  };
  EXPECT_EQ(run(-2, RoundingMode::tflite), -1);
  EXPECT_EQ(run(-2, RoundingMode::tonearest), -1);
  EXPECT_EQ(run(-2, RoundingMode::upward), 0);
  EXPECT_EQ(run(-2, RoundingMode::fp32), 0);
  EXPECT_EQ(run(-2, RoundingMode::arm), 0);
  EXPECT_EQ(run(2, RoundingMode::tflite), 1);
  EXPECT_EQ(run(2, RoundingMode::tonearest), 1);
  EXPECT_EQ(run(2, RoundingMode::upward), 1);
  EXPECT_EQ(run(2, RoundingMode::arm), 1);
  EXPECT_EQ(run(2, RoundingMode::fp32), 0);  // 0.5 to even
  EXPECT_EQ(run(6, RoundingMode::fp32), 2);  // 1.5 to even
  EXPECT_EQ(run(-6, RoundingMode::fp32), -2);

  // acc = -929679, M = 2121406017, e = -2: true value -229597.397.
  const std::int32_t acc = -929679, m = 2121406017;
  EXPECT_EQ(sc::tflite(acc, m, 0, 2), -229598);
  EXPECT_EQ(gemmlowp_tflite(acc, m, -2), -229598);
  EXPECT_EQ(sc::upward(acc, m, 33), -229597);
  EXPECT_EQ(sc::tonearest(acc, m, 33), -229597);
  EXPECT_EQ(sc::arm(acc, m, 0, 2), -229597);
  const float scale = static_cast<float>(std::ldexp(static_cast<double>(m), -33));
  EXPECT_EQ(sc::fp32(acc, scale, -1e9f, 1e9f), -229597);
  // Clamped and offset: clamp(round + zp) computed exactly, no int32 overflow near the limits.
  EXPECT_EQ(requantize_reference(acc, {m, -2}, scale, RoundingMode::tflite, 255, -128, 255), -128);
  EXPECT_EQ(requantize_reference(-acc, {m, -2}, scale, RoundingMode::upward, -128, -128, 255), 255);
}

TEST(RequantReference, ClampBoundsAndZeroPoint) {
  const FixedPointMultiplier one_tenth = quantize_multiplier(0.1);
  for (RoundingMode mode : kAllRoundingModes) {
    // qmin == qmax: everything maps to it.
    for (std::int32_t acc : {INT32_MIN, -1000, 0, 7, INT32_MAX}) {
      EXPECT_EQ(requantize_reference(acc, one_tenth, 0.1f, mode, 3, 42, 42), 42);
    }
    // ReLU6-like bounds [zp, zp + 60].
    EXPECT_EQ(requantize_reference(-500, one_tenth, 0.1f, mode, 10, 10, 70), 10);
    EXPECT_EQ(requantize_reference(300, one_tenth, 0.1f, mode, 10, 10, 70), 40);
    EXPECT_EQ(requantize_reference(5000, one_tenth, 0.1f, mode, 10, 10, 70), 70);
    // Scale 0: the zero point, clamped.
    EXPECT_EQ(requantize_reference(INT32_MAX, {0, 0}, 0.0f, mode, -7, -128, 127), -7);
    EXPECT_EQ(requantize_reference(INT32_MAX, {0, 0}, 0.0f, mode, 200, 0, 100), 100);
  }
  EXPECT_THROW(requantize_reference(0, {-1, 0}, 0.0f, RoundingMode::tflite, 0, 0, 1), std::invalid_argument);
  EXPECT_THROW(requantize_reference(0, {1 << 30, 31}, 0.0f, RoundingMode::tflite, 0, 0, 1), std::invalid_argument);
  EXPECT_THROW(requantize_reference(0, {1 << 30, -32}, 0.0f, RoundingMode::tflite, 0, 0, 1), std::invalid_argument);
  EXPECT_THROW(requantize_reference(0, {1 << 30, 0}, 0.0f, RoundingMode::tflite, 0, 2, 1), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
