// Hand-built problems and requantization parameters that every entry point (GEMM, conv2d,
// depthwise, requantize) must refuse with a message naming the problem, before any kernel runs:
// modes outside the enum, NaN scales, zero points outside the output type, absurd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/conv2d_test_support.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/kernels/limits.h"
#include "qtune/kernels/requantize.h"

namespace qtune {
namespace {

// Runs `call` and returns the message of the std::invalid_argument it must throw ("" if none).
std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REFUSED_WITH(call, text)                                          \
  do {                                                                           \
    const std::string message = refusal([&] { call; });                          \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

RequantParams valid_params(RoundingMode mode = RoundingMode::tflite) {
  return RequantParams::make(mode, {0.01, 0.02, 0.03, 0.04}, -3, -128, 127);
}

RoundingMode outside_enum() { return static_cast<RoundingMode>(9); }

GemmProblem small_gemm() {
  GemmProblem p;
  p.m = 8;
  p.n = 4;
  p.k = 16;
  p.a_zero_point = 3;
  p.out_type = DType::s8;
  p.requant = valid_params();
  return p;
}

Conv2dProblem small_depthwise() {
  Conv2dProblem p;
  p.in_h = 6;
  p.in_w = 6;
  p.in_c = 16;
  p.out_c = 16;
  p.groups = 16;
  p.kernel_h = 3;
  p.kernel_w = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  testing::quantize_problem(p, testing::ConvQuant{}, 7);
  return p;
}

Conv2dProblem small_im2col() {
  Conv2dProblem p;
  p.in_h = 5;
  p.in_w = 5;
  p.in_c = 4;
  p.out_c = 8;
  p.kernel_h = 3;
  p.kernel_w = 3;
  testing::quantize_problem(p, testing::ConvQuant{}, 11);
  return p;
}

// Prepares `p` with the configuration the valid problem `base` gets by default.
void prepare_conv(const Conv2dProblem& base, const Conv2dProblem& p) {
  const Conv2dConfig config = conv2d_default_config(base);
  const testing::ConvData data = testing::make_data(base, 3);
  (void)Conv2dOp::prepare(p, config, data.weights.data(), p.has_bias ? data.bias.data() : nullptr);
}

void requantize_one_row(const RequantParams& params, DType out_type) {
  const std::vector<std::int32_t> acc(4, 1000);
  std::vector<std::uint8_t> out(4);
  requantize(RequantizeConfig{}, params, out_type, acc.data(), 1, 4, 4, out.data(), 4);
}

TEST(RequantValidation, ValidParamsPassEveryCheck) {
  for (RoundingMode mode : kAllRoundingModes) {
    EXPECT_EQ(valid_params(mode).check(), "");
    EXPECT_EQ(valid_params(mode).check(DType::s8), "");
    EXPECT_NO_THROW(requantize_one_row(valid_params(mode), DType::s8));
  }
  EXPECT_NE(valid_params().check(DType::s32).find("must be u8 or s8"), std::string::npos);
}

TEST(RequantValidation, RoundingModeOutsideTheEnumIsRefusedEverywhere) {
  RequantParams params = valid_params();
  params.mode = outside_enum();
  EXPECT_NE(params.check().find("rounding mode 9 is not a RoundingMode"), std::string::npos);
  EXPECT_REFUSED_WITH(requantize_one_row(params, DType::s8), "rounding mode 9");

  GemmProblem gemm = small_gemm();
  gemm.requant = params;
  EXPECT_REFUSED_WITH(gemm.validate(), "rounding mode 9");
  const std::vector<std::int8_t> b(static_cast<std::size_t>(gemm.k * gemm.n), 1);
  const std::vector<std::int32_t> bias(static_cast<std::size_t>(gemm.n), 0);
  EXPECT_REFUSED_WITH(GemmOp::prepare(gemm, gemm_default_config(small_gemm()), b.data(), gemm.n, bias.data()),
                      "rounding mode 9");

  for (const Conv2dProblem& base : {small_depthwise(), small_im2col()}) {
    Conv2dProblem conv = base;
    conv.requant.mode = outside_enum();
    EXPECT_REFUSED_WITH(prepare_conv(base, conv), "rounding mode 9");
  }
}

TEST(RequantValidation, NanScaleIsRefusedByRequantizeAndDepthwise) {
  RequantParams params = RequantParams::make(RoundingMode::fp32, {0.01}, 0, -128, 127);
  params.scales[0] = std::nan("");
  params.scales_f32[0] = std::nanf("");
  EXPECT_REFUSED_WITH(requantize_one_row(params, DType::s8), "scales[0]");

  // Only the float scale broken (the one fp32 mode reads): still refused.
  RequantParams float_only = RequantParams::make(RoundingMode::fp32, {0.01}, 0, -128, 127);
  float_only.scales_f32[0] = std::numeric_limits<float>::infinity();
  EXPECT_REFUSED_WITH(requantize_one_row(float_only, DType::s8), "float scale");

  Conv2dProblem base = small_depthwise();
  base.requant = RequantParams::make(RoundingMode::fp32, std::vector<double>(16, 0.01), 0, -128, 127);
  Conv2dProblem conv = base;
  conv.requant.scales[5] = std::nan("");
  EXPECT_REFUSED_WITH(prepare_conv(base, conv), "scales[5]");
  EXPECT_REFUSED_WITH(conv.validate(), "scales[5]");
}

TEST(RequantValidation, OutputZeroPointMustLieInTheOutputType) {
  RequantParams s8_200 = RequantParams::make(RoundingMode::tflite, {0.01}, 200, -128, 127);
  EXPECT_REFUSED_WITH(requantize_one_row(s8_200, DType::s8), "output zero point 200 is outside the range of s8");
  RequantParams u8_minus_1 = RequantParams::make(RoundingMode::tflite, {0.01}, -1, 0, 255);
  EXPECT_REFUSED_WITH(requantize_one_row(u8_minus_1, DType::u8), "output zero point -1 is outside the range of u8");
  // The edges of each range are fine.
  EXPECT_NO_THROW(requantize_one_row(RequantParams::make(RoundingMode::tflite, {0.01}, 127, -128, 127), DType::s8));
  EXPECT_NO_THROW(requantize_one_row(RequantParams::make(RoundingMode::tflite, {0.01}, 0, 0, 255), DType::u8));
  EXPECT_NO_THROW(requantize_one_row(RequantParams::make(RoundingMode::tflite, {0.01}, 255, 0, 255), DType::u8));

  Conv2dProblem base = small_depthwise();
  Conv2dProblem conv = base;
  conv.requant.output_zero_point = 200;
  EXPECT_REFUSED_WITH(prepare_conv(base, conv), "output zero point 200");
  Conv2dProblem u8_base = small_depthwise();
  testing::quantize_problem(u8_base, testing::ConvQuant{.out_type = DType::u8}, 5);
  Conv2dProblem u8_conv = u8_base;
  u8_conv.requant.output_zero_point = -1;
  EXPECT_REFUSED_WITH(prepare_conv(u8_base, u8_conv), "output zero point -1");
}

TEST(RequantValidation, UnderivedParamsAreRefused) {
  RequantParams params = valid_params();
  params.fixed.pop_back();
  EXPECT_REFUSED_WITH(requantize_one_row(params, DType::s8), "RequantParams::make");
  RequantParams wrong_fixed = valid_params();
  wrong_fixed.fixed[1].shift = 40;
  EXPECT_REFUSED_WITH(requantize_one_row(wrong_fixed, DType::s8), "not a quantize_multiplier() result");
  RequantParams unnormalized = valid_params();
  unnormalized.fixed[0].multiplier = (1 << 30) - 1;
  EXPECT_REFUSED_WITH(requantize_one_row(unnormalized, DType::s8), "not a quantize_multiplier() result");
}

TEST(SizeLimits, DepthwiseWithAHugeWidthIsRefusedBeforeAllocating) {
  Conv2dProblem p = small_depthwise();
  p.in_w = std::int64_t{1} << 61;
  EXPECT_REFUSED_WITH(p.validate(), "in_w 2305843009213693952 exceeds the largest dimension");
  EXPECT_REFUSED_WITH(prepare_conv(small_depthwise(), p), "in_w");
}

TEST(SizeLimits, Im2colWithHugeSidesNamesTheField) {
  Conv2dProblem wide = small_im2col();
  wide.in_w = std::int64_t{1} << 61;
  EXPECT_REFUSED_WITH(wide.validate(), "in_w 2305843009213693952 exceeds");
  Conv2dProblem both = small_im2col();
  both.in_h = both.in_w = std::int64_t{1} << 62;
  EXPECT_REFUSED_WITH(both.validate(), "in_h 4611686018427387904 exceeds");
  EXPECT_REFUSED_WITH(prepare_conv(small_im2col(), both), "in_h");
  Conv2dProblem padded = small_im2col();
  padded.pad_left = std::numeric_limits<std::int64_t>::max();
  EXPECT_REFUSED_WITH(padded.validate(), "pad_left");
}

TEST(SizeLimits, LayersBeyondTheMemoryLimitAreRefused) {
  Conv2dProblem big = small_im2col();
  big.batch = 1;
  big.in_h = big.in_w = 100000;
  big.in_c = 1024;
  testing::quantize_problem(big, testing::ConvQuant{}, 1);
  EXPECT_REFUSED_WITH(big.validate(), "the layer needs");
  EXPECT_REFUSED_WITH(big.validate(), "more than the 4.0 GiB a layer may use");

  GemmProblem gemm = small_gemm();
  gemm.m = 1000000000;
  gemm.k = 1000;
  EXPECT_REFUSED_WITH(gemm.validate(), "the layer needs");
  gemm.m = kMaxDimension;
  gemm.n = kMaxDimension;
  gemm.k = kMaxDimension;
  EXPECT_GT(layer_bytes(gemm), kMaxLayerBytes);
  EXPECT_REFUSED_WITH(gemm.validate(), "the layer needs");
}

TEST(SizeLimits, LayerBytesCountTheTensorsAndSaturate) {
  GemmProblem gemm = small_gemm();  // 8 x 4 x 16
  EXPECT_EQ(layer_bytes(gemm), 8u * 16 + 2u * 16 * 4 + 4u * 8 * 4 + 28u * 4);
  gemm.m = gemm.n = gemm.k = kMaxDimension;
  // m*k + 2*k*n + 4*m*n is about 2^65 here: the sum saturates instead of wrapping to something small.
  EXPECT_EQ(layer_bytes(gemm), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(describe_bytes(512), "512 bytes");
  EXPECT_EQ(describe_bytes(std::uint64_t{4} << 30), "4.0 GiB");
  // A real layer is far inside the limit.
  GemmProblem large_real = small_gemm();
  large_real.m = 4096;
  large_real.n = 4096;
  large_real.k = 4096;
  large_real.requant = RequantParams::make(RoundingMode::tflite, {0.01}, 0, -128, 127);
  EXPECT_NO_THROW(large_real.validate());
}

}  // namespace
}  // namespace qtune
