// The GEMM's centred epilogue with the origin folded into the column terms (gemm_driver.cc,
// centred_origin_foldable): the accumulators start from the column terms less each channel's
// origin X0, which is exact only while acc - X0 cannot wrap. These layers put accumulators where it
// would: every microkernel must still match the reference there.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "requantize/fp32_equivalent.h"
#include "requantize/requant_plan.h"

namespace qtune::detail {
namespace {

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

// Every microkernel of every usable instruction set, on a layer whose outputs are its biases (each
// weight equals its zero point), from the bottom of the int32 range upwards in steps of 4096: the
// band [INT32_MIN, INT32_MIN + X0), where acc - X0 would wrap to the top of the range and a ReLU's
// 0 would become 255, and results of 1 and more above it (random weights at a small bias).
TEST(GemmCentredOrigin, AccumulatorsWhereFoldingWouldWrapMatchTheReference) {
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
    std::vector<std::int32_t> bias(static_cast<std::size_t>(p.n));
    for (auto& v : a) v = static_cast<std::uint8_t>(rng());
    for (std::size_t c = 0; c < bias.size(); ++c) {
      bias[c] = near_int32_min ? std::numeric_limits<std::int32_t>::min() + static_cast<std::int32_t>(c) * 4096
                               : static_cast<std::int32_t>(c) * 50;
    }
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
        op.run(a.data(), static_cast<std::size_t>(p.k), c.data(), static_cast<std::size_t>(p.n));
        EXPECT_EQ(c, expected) << uk.name << (pack_a ? ", packed A" : ", A in place")
                               << (near_int32_min ? ", biases near INT32_MIN" : ", small biases");
      }
    }
  }
}

}  // namespace
}  // namespace qtune::detail
