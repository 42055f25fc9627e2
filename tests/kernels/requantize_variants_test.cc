// Every standalone requantization variant (ISA x unroll) equals the scalar reference on the same
// inputs: every mode, per-tensor and per-channel, u8 and s8, extreme parameters, ragged and
// strided shapes. Variants the CPU cannot run are skipped with the ISA named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/requantize.h"
#include "quant/requant_plan.h"
#include "requantize/requantize_internal.h"

namespace qtune {
namespace {

struct Shape {
  std::size_t rows, cols, acc_stride, out_stride;
};

// Lengths 0, 1, 15, 17 (ragged around 8- and 16-lane vectors), strided multi-row matrices.
const Shape kShapes[] = {{1, 0, 0, 0},   {0, 5, 5, 5},     {1, 1, 1, 1},     {1, 15, 15, 15},
                         {1, 17, 17, 17}, {3, 17, 20, 19}, {5, 37, 40, 41},  {2, 64, 64, 70},
                         {4, 71, 71, 71}};
// A million elements check the vector loops' steady state; under the sanitizers, whose findings
// do not depend on the length past the first few vectors, a tenth of them.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kLargeLength = 100003;
#else
constexpr std::size_t kLargeLength = 1000003;
#endif
const Shape kLargeShape = {1, kLargeLength, kLargeLength, kLargeLength};

// Accumulators that hit every path: full-range values, small values (unclamped results), exact
// ties of power-of-two scales, and the int32 limits.
std::vector<std::int32_t> make_acc(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> acc(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t bits = rng();
    switch (bits % 8) {
      case 0: acc[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 8)); break;
      case 1: acc[i] = (bits >> 32) & 1 ? INT32_MIN : INT32_MAX; break;
      case 2: acc[i] = static_cast<std::int32_t>((bits >> 8) % 64) - 32; break;  // ties at scales 2^-k
      case 3: acc[i] = static_cast<std::int32_t>(((bits >> 8) % 33) - 16) << ((bits >> 40) % 31); break;
      default: {
        const int width = static_cast<int>((bits >> 8) % 24);
        acc[i] = static_cast<std::int32_t>((bits >> 32) % (std::uint64_t{1} << width)) * ((bits >> 63) ? -1 : 1);
      }
    }
  }
  return acc;
}

struct Case {
  std::string name;
  RequantParams params;
};

// Scales for per-channel lists: extremes mixed with ordinary ones, so neighbouring lanes differ.
const double kChannelScales[] = {1e-3,   0.25,  0.5,   1.0,   3.0,     1e-9,    0.0,     1e-12,
                                 2.5e-5, 0.7,   1e5,   1e10,  0.03125, 2.3e-10, 1.1e-7,  7e-2,
                                 6e8,    0.125, 4.6e-10, 2.0, 1e-1};

std::vector<Case> make_cases(RoundingMode mode, DType out) {
  const std::int32_t tmin = out == DType::u8 ? 0 : -128, tmax = out == DType::u8 ? 255 : 127;
  const std::int32_t zp_mid = out == DType::u8 ? 128 : 0;
  std::vector<Case> cases;
  auto add = [&](std::string name, std::vector<double> scales, std::int32_t zp, std::int32_t qmin, std::int32_t qmax) {
    cases.push_back({std::move(name), RequantParams::make(mode, std::move(scales), zp, qmin, qmax)});
  };
  add("typical", {0.0123}, zp_mid - 3, tmin, tmax);
  add("quarter_ties", {0.25}, zp_mid, tmin, tmax);
  add("half_ties", {0.5}, zp_mid + 1, tmin, tmax);
  add("pow2_-10_ties", {std::ldexp(1.0, -10)}, zp_mid, tmin, tmax);
  add("tiny_e-31", {std::ldexp(1.0, -32)}, zp_mid, tmin, tmax);
  add("underflow", {1e-12}, zp_mid, tmin, tmax);
  add("zero_scale", {0.0}, zp_mid + 5, tmin, tmax);
  add("one", {1.0}, zp_mid, tmin, tmax);
  add("huge_clamped", {1e10}, zp_mid, tmin, tmax);
  add("e30", {std::ldexp(0.9, 30)}, zp_mid, tmin, tmax);
  // Just below 1: the largest multiplier without a left shift, so the int32 limits requantize to
  // about +-2^31 before the zero point (the short u8 epilogue's wrap past INT32_MAX).
  add("below_one", {0.99999994}, zp_mid, tmin, tmax);
  add("below_one_zp_at_qmax", {0.99999994}, tmax, tmin, tmax);
  add("zp_at_qmin", {0.01}, tmin, tmin, tmax);
  add("zp_at_qmax", {0.01}, tmax, tmin, tmax);
  add("zp_outside_bounds", {0.02}, tmin, tmin + 20, tmax - 20);
  add("qmin_eq_qmax", {0.05}, zp_mid, zp_mid + 7, zp_mid + 7);
  add("relu6", {0.003}, tmin + 10, tmin + 10, tmin + 10 + 60);
  // A fused ReLU (zero point at qmin) on exact ties, where tflite and arm round negative results
  // differently (tflite computes arm there: RequantPlan::make).
  add("half_ties_relu", {0.5}, tmin, tmin, tmax);
  add("pow2_-10_ties_relu", {std::ldexp(1.0, -10)}, tmin, tmin, tmax);
  // Fused ReLUs at the scales of TFLite's uint8 MobileNetV2, whose [0, 255] clamp has a centred
  // float form (kFp32Centred) on AVX-512 where the uncentred forms fail.
  add("relu_8.9e-4", {8.89e-4}, tmin, tmin, tmax);
  add("relu_3.65e-4", {3.65e-4}, tmin, tmin, tmax);
  std::vector<double> per_channel;
  for (int c = 0; c < 71; ++c) per_channel.push_back(kChannelScales[c % std::size(kChannelScales)] * (1.0 + c / 128.0));
  cases.push_back({"per_channel", RequantParams::make(mode, per_channel, zp_mid - 1, tmin, tmax)});
  cases.push_back({"per_channel_relu6", RequantParams::make(mode, per_channel, tmin + 3, tmin + 3, tmin + 40)});
  std::vector<double> relu_channels;
  for (int c = 0; c < 37; ++c) relu_channels.push_back(4e-4 * (1.0 + c / 16.0));
  cases.push_back({"per_channel_relu", RequantParams::make(mode, relu_channels, tmin, tmin, tmax)});
  return cases;
}

// Per-channel params of exactly `cols` channels (cycling through the case's scales).
RequantParams for_columns(const RequantParams& p, std::size_t cols) {
  if (!p.per_channel() || cols == 0) return p;  // an empty matrix takes any params
  std::vector<double> scales(cols);
  for (std::size_t c = 0; c < cols; ++c) scales[c] = p.scales[c % p.channels()];
  return RequantParams::make(p.mode, scales, p.output_zero_point, p.qmin, p.qmax);
}

constexpr std::uint8_t kSentinel = 0xA5;

// How check_form runs a variant: through the public entry point (on x86, integer modes whose scales
// have an exact float form run the float epilogue), with the plan in its own mode (so that the
// integer epilogues stay covered for those scales too), or with every float form that any family
// takes forced on this one (the centred form included: families that never get it still compute it).
enum class PlanForm { public_entry, own_mode, every_float_form };

// Runs `config` and compares every element with requantize_reference(); bytes in the stride gaps
// must keep the sentinel.
void check_form(const RequantizeConfig& config, const RequantParams& params, DType out_type, const Shape& s,
                const std::vector<std::int32_t>& acc, const std::string& what, PlanForm form) {
  std::vector<std::uint8_t> out(s.rows * s.out_stride + 1, kSentinel);
  if (form == PlanForm::every_float_form) {
    const detail::RequantPlan plan = detail::RequantPlan::make(params, detail::FloatForms::directed_rounding);
    detail::requantize(config, plan.constants(), out_type, s.rows ? acc.data() : nullptr, s.rows, s.cols,
                       s.acc_stride, out.data(), s.out_stride);
  } else if (form == PlanForm::own_mode) {
    const detail::RequantPlan plan = detail::RequantPlan::make(params);
    // tflite with a clamp that keeps no negative result computes arm (RequantPlan::make).
    const bool relu_tflite = params.mode == RoundingMode::tflite && params.qmin >= params.output_zero_point;
    ASSERT_EQ(plan.mode, relu_tflite ? RoundingMode::arm : params.mode);
    ASSERT_EQ(plan.arm_equivalent_of_tflite, relu_tflite);
    detail::requantize(config, plan.constants(), out_type, s.rows ? acc.data() : nullptr, s.rows, s.cols,
                       s.acc_stride, out.data(), s.out_stride);
  } else {
    requantize(config, params, out_type, s.rows ? acc.data() : nullptr, s.rows, s.cols, s.acc_stride, out.data(),
               s.out_stride);
  }
  for (std::size_t r = 0; r < s.rows; ++r) {
    for (std::size_t c = 0; c < s.out_stride; ++c) {
      const std::uint8_t got_byte = out[r * s.out_stride + c];
      if (c >= s.cols) {
        ASSERT_EQ(got_byte, kSentinel) << what << ": wrote past column " << s.cols << " in row " << r;
        continue;
      }
      const std::int32_t a = acc[r * s.acc_stride + c];
      const std::int32_t want = requantize_reference(a, params, c);
      const std::int32_t got = out_type == DType::u8 ? got_byte : static_cast<std::int8_t>(got_byte);
      ASSERT_EQ(got, want) << what << ": row " << r << " col " << c << " acc " << a << " scale "
                           << params.scales[params.per_channel() ? c : 0];
    }
  }
  ASSERT_EQ(out.back(), kSentinel) << what << ": wrote past the end";
}

void check(const RequantizeConfig& config, const RequantParams& params, DType out_type, const Shape& s,
           const std::vector<std::int32_t>& acc, const std::string& what) {
  ASSERT_NO_FATAL_FAILURE(check_form(config, params, out_type, s, acc, what, PlanForm::public_entry));
  ASSERT_NO_FATAL_FAILURE(
      check_form(config, params, out_type, s, acc, what + " (plan in its own mode)", PlanForm::own_mode));
  ASSERT_NO_FATAL_FAILURE(
      check_form(config, params, out_type, s, acc, what + " (every float form)", PlanForm::every_float_form));
}

class RequantizeVariant : public ::testing::TestWithParam<RequantizeConfig> {};

std::string variant_name(const RequantizeConfig& c) {
  return std::string(to_string(c.isa)) + "_x" + std::to_string(c.unroll);
}

TEST_P(RequantizeVariant, EqualsReferenceEverywhere) {
  const RequantizeConfig config = GetParam();
  if (!cpu_features().usable(config.isa)) {
    GTEST_SKIP() << "isa " << to_string(config.isa) << " is not usable on this CPU";
  }
  ASSERT_EQ(requantize_check_config(config), "");
  std::uint64_t seed = 1;
  for (RoundingMode mode : kAllRoundingModes) {
    for (DType out_type : {DType::u8, DType::s8}) {
      for (const Case& k : make_cases(mode, out_type)) {
        for (const Shape& s : kShapes) {
          const std::vector<std::int32_t> acc = make_acc(s.rows * s.acc_stride, seed++);
          const std::string what = variant_name(config) + " " + std::string(to_string(mode)) + " " +
                                   std::string(to_string(out_type)) + " " + k.name + " " + std::to_string(s.rows) +
                                   "x" + std::to_string(s.cols);
          ASSERT_NO_FATAL_FAILURE(check(config, for_columns(k.params, s.cols), out_type, s, acc, what));
        }
      }
    }
  }
}

TEST_P(RequantizeVariant, EqualsReferenceOnAMillionElements) {
  const RequantizeConfig config = GetParam();
  if (!cpu_features().usable(config.isa)) {
    GTEST_SKIP() << "isa " << to_string(config.isa) << " is not usable on this CPU";
  }
  const std::vector<std::int32_t> acc = make_acc(kLargeShape.cols, 77);
  for (RoundingMode mode : kAllRoundingModes) {
    const std::vector<Case> cases = make_cases(mode, DType::s8);
    const auto per_channel = std::find_if(cases.begin(), cases.end(), [](const Case& k) { return k.name == "per_channel"; });
    ASSERT_NE(per_channel, cases.end());
    for (const Case& k : {cases.front(), *per_channel}) {  // per-tensor and per-channel
      const std::string what =
          variant_name(config) + " " + std::string(to_string(mode)) + " " + k.name + " " + std::to_string(kLargeLength);
      // The forced float forms are covered by the shapes above; the long row checks the vector
      // loops' steady state in the forms each family takes by itself.
      const RequantParams params = for_columns(k.params, kLargeShape.cols);
      ASSERT_NO_FATAL_FAILURE(check_form(config, params, DType::s8, kLargeShape, acc, what, PlanForm::public_entry));
      ASSERT_NO_FATAL_FAILURE(check_form(config, params, DType::s8, kLargeShape, acc, what + " (own mode)", PlanForm::own_mode));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCompiledIn, RequantizeVariant, ::testing::ValuesIn(requantize_variants()),
                         [](const auto& info) { return variant_name(info.param); });

}  // namespace
}  // namespace qtune
