// The vpdpbusd forms of the 64-channel AVX-512 depthwise tiles (DwForm): which one runs for which
// layer (exactly where its preconditions hold) and their lane orders. Their results are checked
// against the reference with every other depthwise kernel over the sweep's shapes
// (conv2d_variants_test.cc, DepthwiseMatchesReference); this file checks that those checks reach
// them, and checks each case it builds against the reference too.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "conv2d_test_support.h"
#include "kernels/src/dwconv/dwconv_driver.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {
namespace {

using detail::DwForm;

struct Shape {
  int channels = 70, width = 6, kernel_w = 3, stride = 1, dilation = 1;
};

Conv2dProblem depthwise_problem(const testing::ConvQuant& q, Shape s) {
  Conv2dProblem p;
  p.in_h = 6;
  p.in_w = s.width;
  p.in_c = p.out_c = p.groups = s.channels;
  p.kernel_h = 3;
  p.kernel_w = s.kernel_w;
  p.stride_h = p.stride_w = s.stride;
  p.dilation_w = s.dilation;
  p.pad_top = p.pad_bottom = 1;
  p.pad_left = p.pad_right = (s.kernel_w - 1) * s.dilation / 2;
  testing::quantize_problem(p, q, 7);
  return p;
}

Conv2dConfig tile64(bool fuse) {
  Conv2dConfig c;
  c.algo = ConvAlgo::depthwise;
  c.gemm.isa = Isa::avx512vnni;
  c.gemm.fuse_requant = fuse;
  c.dw_channel_tile = 64;
  c.dw_width_tile = 4;
  return c;
}

using LaneOrder = std::size_t (*)(std::size_t index, std::size_t channels);

// The channel of each {index, channel} of `expected`, and that indices [0, lanes) name every
// channel `times` times.
void expect_lane_order(LaneOrder order, std::size_t channels, std::size_t lanes,
                       std::initializer_list<std::pair<std::size_t, std::size_t>> expected, int times) {
  for (const auto& [index, channel] : expected) EXPECT_EQ(order(index, channels), channel) << "index " << index;
  std::vector<int> seen(channels, 0);
  for (std::size_t k = 0; k < lanes; ++k) ++seen.at(order(k, channels));
  EXPECT_EQ(std::count(seen.begin(), seen.end(), times), static_cast<std::ptrdiff_t>(channels));
}

TEST(DwForms, Dot4LaneOrderIsChannelFourIPlusJInWholeBlocks) {
  // Index 16j + i of a whole block holds channel 4i + j; the channels after it keep their order.
  expect_lane_order(detail::dw_dot4_channel, 150, 150,
                    {{0, 0}, {1, 4}, {15, 60}, {16, 1}, {63, 63}, {64 + 17, 64 + 5}, {128, 128}, {149, 149}}, 1);
  EXPECT_EQ(detail::dw_dot4_channel(17, 63), 17u);  // no whole block
}

TEST(DwForms, RowdotLaneOrderIsTheUnpacksOrder) {
  // Index 16k + i of a whole block holds channel 16 (i / 4) + 4k + i % 4.
  EXPECT_EQ(detail::dw_rowdot_lanes(150), 150u);
  expect_lane_order(detail::dw_rowdot_channel, 150, 150,
                    {{0, 0}, {3, 3}, {4, 16}, {15, 51}, {16, 4}, {63, 63}, {64 + 20, 64 + 20}, {64 + 16, 64 + 4},
                     {128, 128}, {149, 149}},
                    1);
  // Pixel pairs: 64 indices, the 32 channels of each pixel in 128-bit lanes 0-1 and 2-3.
  ASSERT_EQ(detail::dw_rowdot_lanes(32), 64u);
  expect_lane_order(detail::dw_rowdot_channel, 32, 64, {{4, 16}, {8, 0}, {16 + 13, 21}}, 2);
  for (std::size_t k = 0; k < 64; ++k) {
    const std::size_t twin = k % 16 < 8 ? k + 8 : k - 8;  // lane i of 128-bit lane L and L + 2
    EXPECT_EQ(detail::dw_rowdot_channel(k, 32), detail::dw_rowdot_channel(twin, 32)) << k;
  }
}

TEST(DwForms, RowdotAppliesToThreeWideRowsAtStrideOneOrTwo) {
  EXPECT_TRUE(detail::dw_rowdot_applies(64, 3, 1, 1, 1));
  EXPECT_TRUE(detail::dw_rowdot_applies(150, 3, 1, 2, 7));
  EXPECT_TRUE(detail::dw_rowdot_applies(32, 3, 1, 1, 2));
  EXPECT_FALSE(detail::dw_rowdot_applies(32, 3, 1, 1, 1));  // a pixel pair needs two pixels
  EXPECT_FALSE(detail::dw_rowdot_applies(32, 3, 1, 2, 8));  // pairs are adjacent pixels
  EXPECT_FALSE(detail::dw_rowdot_applies(48, 3, 1, 1, 8));  // no whole block
  EXPECT_FALSE(detail::dw_rowdot_applies(64, 5, 1, 1, 8));
  EXPECT_FALSE(detail::dw_rowdot_applies(64, 3, 2, 1, 8));
  EXPECT_FALSE(detail::dw_rowdot_applies(64, 3, 1, 3, 8));
}

TEST(DwForms, EachRunsExactlyWhenItsPreconditionsHold) {
  if (!cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "isa avx512vnni is not usable on this CPU";
  if (detail::find_dw_kernel(Isa::avx512vnni, 64, 4, DwForm::rowdot) == nullptr) {
    GTEST_SKIP() << "no rowdot kernels in this build";
  }
  const testing::ConvQuant u8{DType::u8, DType::s8, true, false, true, RoundingMode::tflite};
  const testing::ConvQuant s8{DType::s8, DType::u8, false, false, false, RoundingMode::fp32};
  struct Case {
    testing::ConvQuant quant;
    Shape shape;
    bool fuse;
    DwForm form;
    const char* why;
  };
  const Case cases[] = {
      {u8, {}, true, DwForm::rowdot, "u8, zb = 0, fused, 3x3"},
      {s8, {}, true, DwForm::rowdot, "s8 (flipped), per tensor"},
      {u8, {.channels = 150, .width = 11, .stride = 2}, true, DwForm::rowdot, "stride 2, a 22-channel tail"},
      {u8, {.channels = 32, .width = 9}, true, DwForm::rowdot, "32 channels: pixel pairs"},
      {s8, {.channels = 32, .width = 2}, true, DwForm::rowdot, "32 channels, two pixels"},
      {u8, {.channels = 32, .width = 1}, true, DwForm::dot4, "32 channels, one pixel"},
      {u8, {.channels = 32, .width = 9, .stride = 2}, true, DwForm::dot4, "32 channels at stride 2"},
      {u8, {.channels = 48}, true, DwForm::dot4, "no whole block"},
      {u8, {.kernel_w = 5}, true, DwForm::dot4, "5 wide"},
      {u8, {.dilation = 2}, true, DwForm::dot4, "dilation 2"},
      {u8, {.width = 10, .stride = 3}, true, DwForm::dot4, "stride 3"},
      {u8, {}, false, DwForm::general, "separate requantization"},
      {{DType::u8, DType::s32, true, false, true, RoundingMode::tflite}, {}, true, DwForm::general, "int32 output"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.why);
    const Conv2dProblem p = depthwise_problem(k.quant, k.shape);
    const testing::ConvData d = testing::make_data(p, 3);
    const detail::DepthwiseConv conv(p, tile64(k.fuse), d.weights.data(), d.bias.data());
    EXPECT_EQ(conv.form(), k.form) << detail::to_string(conv.form());
    testing::expect_matches_reference(p, tile64(k.fuse), 3);
  }
  // Weights that leave int8 once the zero point is subtracted: the general form.
  Conv2dProblem p = depthwise_problem({DType::u8, DType::s8, true, true, true, RoundingMode::tflite}, {});
  testing::ConvData d = testing::make_data(p, 3);
  d.weights[0] = -128;
  p.b_zero_points[0] = 5;  // -133
  const detail::DepthwiseConv conv(p, tile64(true), d.weights.data(), d.bias.data());
  EXPECT_EQ(conv.form(), DwForm::general);
}

TEST(DwForms, ThirtyTwoChannelLayersDefaultToRowdotPixelPairs) {
  if (!cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "isa avx512vnni is not usable on this CPU";
  if (detail::find_dw_kernel(Isa::avx512vnni, 64, 4, DwForm::rowdot) == nullptr) {
    GTEST_SKIP() << "no rowdot kernels in this build";
  }
  const testing::ConvQuant u8{DType::u8, DType::u8, true, false, true, RoundingMode::fp32};
  const Conv2dProblem pairs = depthwise_problem(u8, {.channels = 32, .width = 16});
  const Conv2dConfig c = conv2d_default_config(pairs);
  if (c.gemm.isa != Isa::avx512vnni) GTEST_SKIP() << "the default is " << to_string(c.gemm.isa);
  EXPECT_EQ(c.dw_channel_tile, 64);
  const testing::ConvData d = testing::make_data(pairs, 5);
  EXPECT_EQ(detail::DepthwiseConv(pairs, c, d.weights.data(), d.bias.data()).form(), DwForm::rowdot);
  // At stride 2 a 64-channel tile would leave half its lanes idle: a 32-channel one.
  EXPECT_EQ(conv2d_default_config(depthwise_problem(u8, {.channels = 32, .width = 16, .stride = 2})).dw_channel_tile, 32);
}

}  // namespace
}  // namespace qtune
