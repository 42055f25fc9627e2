// The dot4 form of the 64-channel AVX-512 depthwise tiles: chosen exactly when its preconditions
// hold (fused requantized output, weights minus zero point within int8), and its lane order. Its
// results are checked against the reference with every other depthwise kernel
// (conv2d_variants_test.cc, DepthwiseMatchesReference); this file checks that those checks reach it.
#include <gtest/gtest.h>

#include "conv2d_test_support.h"
#include "kernels/src/dwconv/dwconv_driver.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {
namespace {

Conv2dProblem depthwise_problem(const testing::ConvQuant& q) {
  Conv2dProblem p;
  p.in_h = p.in_w = 6;
  p.in_c = p.out_c = p.groups = 70;
  p.kernel_h = p.kernel_w = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
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

TEST(DwDot4, LaneOrderIsChannelFourIPlusJInWholeBlocks) {
  // Index 16j + i of a whole block holds channel 4i + j; the channels after it keep their order.
  EXPECT_EQ(detail::dw_dot4_channel(0, 150), 0u);
  EXPECT_EQ(detail::dw_dot4_channel(1, 150), 4u);
  EXPECT_EQ(detail::dw_dot4_channel(15, 150), 60u);
  EXPECT_EQ(detail::dw_dot4_channel(16, 150), 1u);
  EXPECT_EQ(detail::dw_dot4_channel(63, 150), 63u);
  EXPECT_EQ(detail::dw_dot4_channel(64 + 17, 150), 64u + 5u);
  EXPECT_EQ(detail::dw_dot4_channel(128, 150), 128u);
  EXPECT_EQ(detail::dw_dot4_channel(149, 150), 149u);
  EXPECT_EQ(detail::dw_dot4_channel(17, 63), 17u);  // no whole block
  std::vector<int> seen(150, 0);
  for (std::size_t k = 0; k < 150; ++k) ++seen.at(detail::dw_dot4_channel(k, 150));
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 150);  // a permutation
}

TEST(DwDot4, RunsExactlyWhenItsPreconditionsHold) {
  if (!cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "isa avx512vnni is not usable on this CPU";
  if (detail::find_dw_kernel(Isa::avx512vnni, 64, 4, true) == nullptr) GTEST_SKIP() << "no dot4 kernels in this build";
  struct Case {
    testing::ConvQuant quant;
    bool fuse;
    bool dot4;
    const char* why;
  };
  const Case cases[] = {
      {{DType::u8, DType::s8, true, false, true, RoundingMode::tflite}, true, true, "u8, zb = 0, fused"},
      {{DType::s8, DType::u8, false, false, false, RoundingMode::fp32}, true, true, "s8 (flipped), per tensor"},
      {{DType::u8, DType::s8, true, false, true, RoundingMode::tflite}, false, false, "separate requantization"},
      {{DType::u8, DType::s32, true, false, true, RoundingMode::tflite}, true, false, "int32 output"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.why);
    const Conv2dProblem p = depthwise_problem(k.quant);
    const testing::ConvData d = testing::make_data(p, 3);
    const detail::DepthwiseConv conv(p, tile64(k.fuse), d.weights.data(), d.bias.data());
    EXPECT_EQ(conv.uses_dot4(), k.dot4);
    testing::expect_matches_reference(p, tile64(k.fuse), 3);
  }
  // Weights that leave int8 once the zero point is subtracted: the general form.
  Conv2dProblem p = depthwise_problem({DType::u8, DType::s8, true, true, true, RoundingMode::tflite});
  testing::ConvData d = testing::make_data(p, 3);
  d.weights[0] = -128;
  p.b_zero_points[0] = 5;  // -133
  const detail::DepthwiseConv conv(p, tile64(true), d.weights.data(), d.bias.data());
  EXPECT_FALSE(conv.uses_dot4());
}

}  // namespace
}  // namespace qtune
