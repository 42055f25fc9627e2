// The standalone requantize kernel's `neon` variants against requantize_reference(), bit for bit,
// for every rounding mode: edge accumulators (INT32_MIN/MAX, exact ties), every exponent from
// underflow to the clamped maximum, per-tensor and per-channel, u8 and s8, ragged widths, strides.
// Runs under qemu for every emulated CPU model of the aarch64 build; skips elsewhere.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/quant.h"
#include "qtune/kernels/requantize.h"

namespace {

using qtune::DType;
using qtune::RequantizeConfig;
using qtune::RequantParams;
using qtune::RoundingMode;

std::vector<RequantizeConfig> neon_variants() {
  std::vector<RequantizeConfig> out;
  for (const auto& v : qtune::requantize_variants()) {
    if (v.isa == qtune::Isa::neon) out.push_back(v);
  }
  return out;
}

// Skips (with the reason) unless this build has neon variants and the CPU runs them.
#define REQUIRE_NEON_VARIANTS()                                                                   \
  if (neon_variants().empty()) GTEST_SKIP() << "no neon requantize variant in this build (not aarch64)"; \
  if (!qtune::cpu_features().usable(qtune::Isa::neon)) GTEST_SKIP() << "isa neon is not usable on this CPU"

// Scales covering every exponent path: exact ties (powers of two), underflow (e < -31 -> M = 0),
// zero, e = -31, left shifts, and scales >= 2^30 (clamped to {2^31 - 1, 30}).
std::vector<double> interesting_scales() {
  return {0.25,    0.5,       1.0 / 3.0, 0.0012345, std::ldexp(1.0, -20), std::ldexp(1.5, -32), std::ldexp(1.0, -40),
          0.0,     1.0,       3.7,       std::ldexp(1.0, 12) + 0.5,    std::ldexp(1.0, 31),  0.0078125, 0.9999999999};
}

// Accumulators that hit the edges of every mode, then random values at several magnitudes.
std::vector<std::int32_t> interesting_accumulators(std::mt19937& rng, std::size_t random_count) {
  std::vector<std::int32_t> acc = {0,      1,       -1,      2,          -2,          3,         -3,
                                   6,      -6,      INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 1 << 30,
                                   -(1 << 30), 929679, -929679, 12345678, -12345678, 1 << 24, (1 << 24) + 1};
  for (int r = 1; r <= 31; ++r) {  // ties and near-ties of a division by 2^r
    const std::int64_t half = std::int64_t{1} << (r - 1);
    for (std::int64_t v : {half, -half, 3 * half, -3 * half, half - 1, -half + 1, half + 1, -half - 1}) {
      if (v >= INT32_MIN && v <= INT32_MAX) acc.push_back(static_cast<std::int32_t>(v));
    }
  }
  std::uniform_int_distribution<std::int32_t> full(INT32_MIN, INT32_MAX), small(-(1 << 20), 1 << 20),
      tiny(-3000, 3000);
  for (std::size_t i = 0; i < random_count; ++i) {
    acc.push_back(i % 3 == 0 ? full(rng) : (i % 3 == 1 ? small(rng) : tiny(rng)));
  }
  return acc;
}

struct OutputRange {
  DType type;
  std::int32_t zero_point, qmin, qmax;
};

const OutputRange kRanges[] = {
    {DType::s8, 0, -128, 127}, {DType::s8, -7, -128, 127}, {DType::s8, 5, 5, 90},  // fused ReLU-like bounds
    {DType::u8, 128, 0, 255},  {DType::u8, 3, 3, 255},     {DType::u8, 0, 0, 6},
};

std::string describe(const RequantizeConfig& v, RoundingMode mode, const OutputRange& range) {
  return "neon unroll " + std::to_string(v.unroll) + ", mode " + std::string(qtune::to_string(mode)) + ", " +
         std::string(qtune::to_string(range.type)) + " zp " + std::to_string(range.zero_point) + " [" +
         std::to_string(range.qmin) + ", " + std::to_string(range.qmax) + "]";
}

// Runs `variant` on a rows x cols matrix (strided) and compares every element with the reference.
void expect_matches_reference(const RequantizeConfig& variant, const RequantParams& params, DType type,
                              const std::vector<std::int32_t>& values, std::size_t cols, const std::string& what) {
  const std::size_t rows = (values.size() + cols - 1) / cols;
  const std::size_t acc_stride = cols + 3, out_stride = cols + 5;
  std::vector<std::int32_t> acc(rows * acc_stride, 0);
  for (std::size_t i = 0; i < values.size(); ++i) acc[(i / cols) * acc_stride + i % cols] = values[i];
  constexpr std::uint8_t kCanary = 0xA5;
  std::vector<std::uint8_t> out(rows * out_stride, kCanary);
  qtune::requantize(variant, params, type, acc.data(), rows, cols, acc_stride, out.data(), out_stride);
  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < out_stride; ++c) {
      const std::uint8_t got = out[r * out_stride + c];
      if (c >= cols) {  // stride padding must stay untouched
        ASSERT_EQ(got, kCanary) << what << ": wrote past column " << cols << " in row " << r;
        continue;
      }
      const std::int32_t a = acc[r * acc_stride + c];
      const std::int32_t want = qtune::requantize_reference(a, params, c);
      const std::int32_t have = type == DType::u8 ? got : static_cast<std::int8_t>(got);
      if (have != want && ++mismatches <= 5) {
        ADD_FAILURE() << what << ": acc " << a << " channel " << c << " scale " << params.scales[params.per_channel() ? c : 0]
                      << ": got " << have << ", reference " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << what;
}

TEST(ArmRequantizeNeon, VariantsAreListedWithEveryUnroll) {
  REQUIRE_NEON_VARIANTS();
  std::vector<int> unrolls;
  for (const auto& v : neon_variants()) {
    unrolls.push_back(v.unroll);
    EXPECT_EQ(qtune::requantize_check_config(v), "");
  }
  EXPECT_EQ(unrolls, (std::vector<int>{1, 2, 4}));
}

TEST(ArmRequantizeNeon, PerTensorBitExactForEveryMode) {
  REQUIRE_NEON_VARIANTS();
  std::mt19937 rng(1234);
  const auto values = interesting_accumulators(rng, 700);
  for (const auto& variant : neon_variants()) {
    for (RoundingMode mode : qtune::kAllRoundingModes) {
      for (const auto& range : kRanges) {
        for (double scale : interesting_scales()) {
          const auto params = RequantParams::make(mode, {scale}, range.zero_point, range.qmin, range.qmax);
          for (std::size_t cols : {std::size_t{29}, std::size_t{16}}) {
            expect_matches_reference(variant, params, range.type, values, cols,
                                     describe(variant, mode, range) + ", scale " + std::to_string(scale) +
                                         ", cols " + std::to_string(cols));
          }
        }
      }
    }
  }
}

TEST(ArmRequantizeNeon, PerChannelBitExactForEveryMode) {
  REQUIRE_NEON_VARIANTS();
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> log2_scale(-36.0, 32.0);
  for (const auto& variant : neon_variants()) {
    for (RoundingMode mode : qtune::kAllRoundingModes) {
      for (const auto& range : kRanges) {
        // Widths around every block size (4, 8, 16 lanes) so that full blocks and ragged ends meet
        // the per-channel constants at every offset.
        for (std::size_t cols : {1, 3, 4, 7, 8, 13, 16, 17, 37}) {
          std::vector<double> scales = interesting_scales();
          scales.resize(cols);
          for (std::size_t c = 0; c < cols; ++c) {
            if (c >= interesting_scales().size() || c % 2 == 1) scales[c] = std::exp2(log2_scale(rng));
          }
          const auto params = RequantParams::make(mode, scales, range.zero_point, range.qmin, range.qmax);
          const auto values = interesting_accumulators(rng, 40 * cols);
          expect_matches_reference(variant, params, range.type, values, cols,
                                   describe(variant, mode, range) + ", per-channel, cols " + std::to_string(cols));
        }
      }
    }
  }
}

// The worked examples of the requantization reference (docs/requantization.md), so a
// failure names the disagreement directly: ties and the double-versus-single rounding case.
TEST(ArmRequantizeNeon, WorkedExamplesOfTheSchemes) {
  REQUIRE_NEON_VARIANTS();
  struct Case {
    RoundingMode mode;
    std::int32_t acc;
    double scale;
    std::int32_t want;
  };
  // acc = -421, S = 0.3 (M = 1288490189, e = -1): exactly -126.3. The double rounding of tflite
  // lands on -127; every single-rounding scheme gives -126.
  const Case cases[] = {
      {RoundingMode::tflite, -2, 0.25, -1},    {RoundingMode::tonearest, -2, 0.25, -1},
      {RoundingMode::upward, -2, 0.25, 0},     {RoundingMode::fp32, -2, 0.25, 0},
      {RoundingMode::arm, -2, 0.25, 0},        {RoundingMode::fp32, 2, 0.25, 0},
      {RoundingMode::tflite, 2, 0.25, 1},      {RoundingMode::upward, 2, 0.25, 1},
      {RoundingMode::tflite, -421, 0.3, -127}, {RoundingMode::upward, -421, 0.3, -126},
      {RoundingMode::tonearest, -421, 0.3, -126}, {RoundingMode::fp32, -421, 0.3, -126},
  };
  for (const auto& variant : neon_variants()) {
    for (const Case& k : cases) {
      const auto params = RequantParams::make(k.mode, {k.scale}, 0, -128, 127);
      ASSERT_EQ(qtune::requantize_reference(k.acc, params, 0), k.want) << "the reference disagrees with the worked example";
      std::vector<std::int32_t> acc(5, k.acc);
      std::vector<std::int8_t> out(5, 0);
      qtune::requantize(variant, params, DType::s8, acc.data(), 1, 5, 5, out.data(), 5);
      for (std::int8_t v : out) {
        EXPECT_EQ(v, k.want)
            << "mode " << qtune::to_string(k.mode) << " acc " << k.acc << " scale " << k.scale << " unroll " << variant.unroll;
      }
    }
  }
}

}  // namespace
