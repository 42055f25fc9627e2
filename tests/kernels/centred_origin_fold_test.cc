// The centred epilogue with the origin folded into the accumulators' first terms (GEMM column terms,
// depthwise bias terms; centred_origin_foldable in quant/requant_plan.h): they start less each
// channel's origin X0, which is exact only while acc - X0 cannot wrap. These layers put
// accumulators where it would: every GEMM microkernel and depthwise kernel must still match the
// reference there.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "dwconv/dwconv.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "quant/fp32_equivalent.h"
#include "quant/requant_plan.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace qtune::detail {
namespace {

// The floating-point control state a kernel must leave as it found it (AVX2's centred epilogue
// sets MXCSR's rounding for each tile: requant_avx2.h, RoundDownScope).
unsigned float_control() {
#if defined(__x86_64__)
  return _mm_getcsr();
#else
  return 0;
#endif
}

// A fused ReLU's tflite requantization ([0, 255], zero point 0) whose only float form is centred.
RequantParams relu_with_centred_form_only() {
  for (double s = 8e-4; s < 2e-3; s *= 1.007) {
    const FixedPointMultiplier f = quantize_multiplier(s);
    if (!fp32_equivalent(RoundingMode::tflite, f, 0, 255) &&
        fp32_equivalent(RoundingMode::tflite, f, 0, 255, Centring::centred)) {
      return RequantParams::make(RoundingMode::tflite, {s}, 0, 0, 255);
    }
  }
  ADD_FAILURE() << "no scale in [8e-4, 2e-3) has a centred form only";
  return RequantParams::make(RoundingMode::tflite, {1e-3}, 0, 0, 255);
}

// The biases of both layers: from INT32_MIN up in steps of 4096, or small ones.
std::vector<std::int32_t> biases(std::size_t count, bool near_int32_min) {
  std::vector<std::int32_t> bias(count);
  for (std::size_t c = 0; c < count; ++c) {
    bias[c] = near_int32_min ? std::numeric_limits<std::int32_t>::min() + static_cast<std::int32_t>(c) * 4096
                             : static_cast<std::int32_t>(c) * 50;
  }
  return bias;
}

// Every microkernel of every usable instruction set, on a layer whose outputs are its biases (each
// weight equals its zero point), from the bottom of the int32 range upwards in steps of 4096: the
// band [INT32_MIN, INT32_MIN + X0), where acc - X0 would wrap to the top of the range and a ReLU's
// 0 would become 255, and results of 1 and more above it (random weights at a small bias).
TEST(CentredOriginFold, GemmAccumulatorsWhereFoldingWouldWrapMatchTheReference) {
  const RequantParams relu = relu_with_centred_form_only();
  ASSERT_EQ(RequantPlan::make(relu, FloatForms::directed_rounding).mode, kFp32Centred);
  std::mt19937 rng(7);
  for (const bool near_int32_min : {true, false}) {
    GemmProblem p;
    p.m = 13;
    p.n = 70;
    p.k = 24;
    p.a_type = DType::u8;
    p.a_zero_point = 3;
    p.b_zero_points = {-5};
    p.out_type = DType::u8;
    p.requant = relu;
    std::vector<std::uint8_t> a(static_cast<std::size_t>(p.m * p.k));
    std::vector<std::int8_t> b(static_cast<std::size_t>(p.k * p.n), -5);
    const std::vector<std::int32_t> bias = biases(static_cast<std::size_t>(p.n), near_int32_min);
    for (auto& v : a) v = static_cast<std::uint8_t>(rng());
    if (!near_int32_min) {
      for (auto& v : b) v = static_cast<std::int8_t>(rng());
    }
    std::vector<std::uint8_t> expected(static_cast<std::size_t>(p.m * p.n));
    gemm_reference(p, a.data(), static_cast<std::size_t>(p.k), b.data(), static_cast<std::size_t>(p.n), bias.data(),
                   expected.data(), static_cast<std::size_t>(p.n));
    if (near_int32_min) {
      ASSERT_EQ(expected[0], 0);  // the band's results, which a wrapped accumulator would turn into 255
    }
    for (const GemmMicrokernelInfo& uk : gemm_microkernels()) {
      if (!cpu_features().usable(uk.isa)) continue;
      for (const bool pack_a : {true, false}) {
        GemmConfig config;
        config.isa = uk.isa;
        config.mr = uk.mr;
        config.nr = uk.nr;
        config.pack_a = pack_a;
        if (!gemm_check_config(p, config).empty()) continue;  // A read in place: not every tile
        const GemmOp op = GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(p.n), bias.data());
        std::vector<std::uint8_t> c(expected.size());
        const unsigned control = float_control();
        op.run(a.data(), static_cast<std::size_t>(p.k), c.data(), static_cast<std::size_t>(p.n));
        EXPECT_EQ(float_control(), control) << uk.name << " left the floating-point control state changed";
        EXPECT_EQ(c, expected) << uk.name << (pack_a ? ", packed A" : ", A in place")
                               << (near_int32_min ? ", biases near INT32_MIN" : ", small biases");
      }
    }
  }
}

// The same on depthwise 3x3 layers: biases from INT32_MIN up (each weight at its zero point), then
// random weights at small biases, through every depthwise kernel of every usable instruction set
// (64-channel tiles in their dot4 form: 70 channels are a whole block and six more).
TEST(CentredOriginFold, DepthwiseAccumulatorsWhereFoldingWouldWrapMatchTheReference) {
  const RequantParams relu = relu_with_centred_form_only();
  std::mt19937 rng(11);
  for (const bool near_int32_min : {true, false}) {
    Conv2dProblem p;
    p.in_h = p.in_w = 5;
    p.in_c = p.out_c = p.groups = 70;
    p.kernel_h = p.kernel_w = 3;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
    p.a_type = DType::u8;
    p.a_zero_point = 3;
    p.b_zero_points = {-5};
    p.out_type = DType::u8;
    p.requant = relu;
    std::vector<std::uint8_t> input(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c));
    std::vector<std::int8_t> weights(static_cast<std::size_t>(9 * p.out_c), -5);
    const std::vector<std::int32_t> bias = biases(static_cast<std::size_t>(p.out_c), near_int32_min);
    for (auto& v : input) v = static_cast<std::uint8_t>(rng());
    if (!near_int32_min) {
      for (auto& v : weights) v = static_cast<std::int8_t>(static_cast<int>(rng() % 200) - 100);
    }
    std::vector<std::uint8_t> expected(static_cast<std::size_t>(p.out_h() * p.out_w() * p.out_c));
    conv2d_reference(p, input.data(), weights.data(), bias.data(), expected.data());
    for (const DwKernel& kernel : dw_kernel_registry()) {
      if (!cpu_features().usable(kernel.isa)) continue;
      Conv2dConfig config;
      config.algo = ConvAlgo::depthwise;
      config.gemm.isa = kernel.isa;
      config.dw_channel_tile = kernel.channel_tile;
      config.dw_width_tile = kernel.width_tile;
      const Conv2dOp op = Conv2dOp::prepare(p, config, weights.data(), bias.data());
      std::vector<std::uint8_t> out(expected.size());
      const unsigned control = float_control();
      op.run(input.data(), out.data());
      EXPECT_EQ(float_control(), control) << to_string(kernel.isa) << " left the floating-point control state changed";
      EXPECT_EQ(out, expected) << to_string(kernel.isa) << " " << kernel.channel_tile << "x" << kernel.width_tile
                               << " " << to_string(kernel.form) << (near_int32_min ? ", biases near INT32_MIN" : ", small biases");
    }
  }
}

}  // namespace
}  // namespace qtune::detail
