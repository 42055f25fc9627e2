// The fused block of a pointwise convolution and the quantized Add after it (executor/src/
// fused_conv_add.h) against the two operations one by one: the convolution's scalar reference,
// then QLinearAdd. Every usable instruction set's microkernels (pack_a both ways, fused and separate
// requantization), ragged widths and channel counts, batches, u8 and s8, extreme quantization
// parameters, the convolution as either input of the Add, the output over the skip tensor, 1 to 3
// threads.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "executor/src/fused_conv_add.h"
#include "executor/src/quantized_ops.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace {

using namespace qtune;
using namespace qtune::executor;

Conv2dProblem pointwise(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t in_c, std::int64_t out_c) {
  Conv2dProblem p;
  p.batch = n;
  p.in_h = h;
  p.in_w = w;
  p.in_c = in_c;
  p.out_c = out_c;
  return p;
}

TEST(PlanConvStrips, StripsDivideTheRowsWithinTheTargetAndAboveTheLeastWork) {
  for (const auto& [n, h, w, c] : std::vector<std::array<std::int64_t, 4>>{
           {1, 56, 56, 256}, {1, 28, 28, 512}, {1, 14, 14, 1024}, {1, 56, 56, 24}, {2, 28, 28, 32}, {1, 13, 17, 40}, {3, 5, 9, 8}}) {
    const Conv2dProblem p = pointwise(n, h, w, 64, c);
    const auto strips = plan_conv_strips(p, 12 * 1024, 64);
    SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c));
    if (!strips) {
      // No height of at least 64 pixels divides the rows into two strips or more.
      for (std::int64_t r = (64 + w - 1) / w; r <= n * h / 2; ++r) EXPECT_NE(n * h % r, 0) << r;
      continue;
    }
    EXPECT_EQ(strips->rows * strips->strips, n * h);
    EXPECT_GE(strips->strips, 2);
    EXPECT_GE(strips->rows * w, 64);
    const std::int64_t least = (64 + w - 1) / w;
    // Within the target wherever a height of the least work fits in it.
    if (least * w * c <= 12 * 1024) {
      EXPECT_LE(strips->rows * w * c, 12 * 1024);
    }
  }
  EXPECT_EQ(plan_conv_strips(pointwise(1, 7, 7, 512, 2048), 12 * 1024, 64), std::nullopt) << "one strip only";
  Conv2dProblem three = pointwise(1, 56, 56, 64, 64);
  three.kernel_h = three.kernel_w = 3;
  three.pad_top = three.pad_bottom = three.pad_left = three.pad_right = 1;
  EXPECT_EQ(plan_conv_strips(three, 12 * 1024, 64), std::nullopt) << "not pointwise";
  Conv2dProblem sums = pointwise(1, 56, 56, 64, 64);
  sums.out_type = DType::s32;
  EXPECT_EQ(plan_conv_strips(sums, 12 * 1024, 64), std::nullopt) << "int32 output";
}

struct Case {
  std::int64_t n, h, w, in_c, out_c;
  DType a_type, out_type;
  Quantization qa, qb, qc;
  bool per_channel;
};

// The convolution's output (quantization qa) added to the skip tensor (qb) into qc.
template <typename T>
void check(const Case& c, const Conv2dConfig& config, bool conv_first, bool in_place, int threads, std::mt19937& rng) {
  Conv2dProblem p = pointwise(c.n, c.h, c.w, c.in_c, c.out_c);
  p.a_type = c.a_type;
  p.a_zero_point = c.a_type == DType::u8 ? 131 : -7;
  p.out_type = c.out_type;
  p.b_zero_points = {0};
  const std::int32_t lo = c.out_type == DType::u8 ? 0 : -128, hi = c.out_type == DType::u8 ? 255 : 127;
  std::vector<double> scales(c.per_channel ? static_cast<std::size_t>(c.out_c) : 1);
  for (auto& s : scales) s = std::uniform_real_distribution<double>(1e-4, 0.02)(rng);
  p.requant = RequantParams::make(RoundingMode::fp32, scales, c.qa.zero_point, lo, hi);
  const auto pixels = static_cast<std::size_t>(c.n * c.h * c.w);
  std::vector<std::uint8_t> input(pixels * static_cast<std::size_t>(c.in_c));
  for (auto& x : input) x = static_cast<std::uint8_t>(rng());
  std::vector<std::int8_t> weights(static_cast<std::size_t>(c.in_c * c.out_c));
  for (auto& x : weights) x = static_cast<std::int8_t>(rng());
  std::vector<std::int32_t> bias(static_cast<std::size_t>(c.out_c));
  for (auto& x : bias) x = static_cast<std::int32_t>(rng() % 20001) - 10000;
  const std::size_t count = pixels * static_cast<std::size_t>(c.out_c);
  std::vector<T> skip(count);
  for (auto& x : skip) x = static_cast<T>(rng());

  std::vector<T> conv_out(count), expected(count);
  conv2d_reference(p, input.data(), weights.data(), bias.data(), conv_out.data());
  if (conv_first) qlinear_add<T>(conv_out.data(), skip.data(), expected.data(), count, c.qa, c.qb, c.qc);
  else qlinear_add<T>(skip.data(), conv_out.data(), expected.data(), count, c.qb, c.qa, c.qc);

  const auto strips = plan_conv_strips(p, 2048, c.w);  // at least a row: prime heights split too
  ASSERT_TRUE(strips.has_value());
  if (!conv2d_check_config(p, config).empty()) return;
  const FusedConvAdd fused(p, config, weights.data(), bias.data(), *strips, conv_first, conv_first ? c.qa : c.qb,
                           conv_first ? c.qb : c.qa, c.qc);
  std::vector<std::uint8_t> scratch(fused.scratch_bytes(threads));
  std::vector<T> out(count);
  T* target = in_place ? skip.data() : out.data();
  fused.run<T>(input.data(), skip.data(), target, scratch.data(), threads);
  std::size_t differing = 0, first = count;
  for (std::size_t i = 0; i < count; ++i)
    if (target[i] != expected[i] && differing++ == 0) first = i;
  EXPECT_EQ(differing, 0u) << "first at " << first << " (pixel " << first / static_cast<std::size_t>(c.out_c) << ")";
}

TEST(FusedConvAdd, EqualsTheConvolutionThenTheAddOnEveryUsableMicrokernel) {
  std::mt19937 rng(7);
  const std::vector<Case> cases = {
      {1, 8, 8, 16, 24, DType::u8, DType::u8, {0.05f, 128}, {0.03f, 120}, {0.07f, 125}, false},
      {1, 7, 9, 40, 17, DType::u8, DType::u8, {1e-4f, 255}, {250.0f, 0}, {0.02f, 3}, true},
      {2, 4, 13, 3, 100, DType::s8, DType::s8, {0.0039215689f, -128}, {0.02f, 127}, {7.5f, 0}, true},
      {1, 8, 5, 64, 8, DType::u8, DType::s8, {3.0517578e-05f, 17}, {1.0f, -3}, {1.0f, 0}, false},
  };
  int checked = 0;
  for (const GemmMicrokernelInfo& uk : gemm_microkernels()) {
    if (!cpu_features().usable(uk.isa)) continue;
    for (const Case& c : cases) {
      for (const bool pack_a : {true, false}) {
        for (const bool fuse : {true, false}) {
          Conv2dConfig config;
          config.algo = ConvAlgo::gemm_1x1;
          config.gemm.isa = uk.isa;
          config.gemm.mr = uk.mr;
          config.gemm.nr = uk.nr;
          config.gemm.pack_a = pack_a;
          config.gemm.fuse_requant = fuse;
          const int threads = 1 + checked % 3;
          const bool conv_first = checked % 2 == 0, in_place = checked % 4 < 2;
          SCOPED_TRACE(uk.name + " pack_a=" + std::to_string(pack_a) + " fuse=" + std::to_string(fuse) + " case " +
                       std::to_string(&c - cases.data()) + " threads " + std::to_string(threads) +
                       (conv_first ? " conv first" : " skip first") + (in_place ? " in place" : ""));
          if (c.out_type == DType::u8) check<std::uint8_t>(c, config, conv_first, in_place, threads, rng);
          else check<std::int8_t>(c, config, conv_first, in_place, threads, rng);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
