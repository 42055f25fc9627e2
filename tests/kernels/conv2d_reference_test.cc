// conv2d_reference itself, the problem's validation and the configuration checks: the reference is
// checked against hand-computed values and against independent formulations (explicit padding,
// the GEMM reference), so that the variant tests compare against something known to be right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "conv2d_test_support.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {
namespace {

using testing::ConvQuant;

Conv2dProblem shape(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t oc, std::int64_t kh,
                    std::int64_t kw, std::int64_t stride = 1, std::int64_t pad = 0, std::int64_t groups = 1) {
  Conv2dProblem p;
  p.batch = n;
  p.in_h = h;
  p.in_w = w;
  p.in_c = c;
  p.out_c = oc;
  p.kernel_h = kh;
  p.kernel_w = kw;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
  p.groups = groups;
  return p;
}

TEST(Conv2dReference, HandComputedValues) {
  // 1x3x3x1 u8 input, za = 1; 2x2 kernel, zb = 0; stride 1, pad (1, 0, 0, 0); bias 5; s32 output.
  Conv2dProblem p = shape(1, 3, 3, 1, 1, 2, 2);
  p.pad_top = 1;
  p.a_zero_point = 1;
  p.out_type = DType::s32;
  const std::uint8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::int8_t w[4] = {1, -1, 2, 3};  // [kh][kw]
  const std::int32_t bias[1] = {5};
  ASSERT_EQ(p.out_h(), 3);
  ASSERT_EQ(p.out_w(), 2);
  std::int32_t out[6] = {};
  conv2d_reference(p, in, w, bias, out);
  // Row 0: the top kernel row is padding, so only w[1][*] = (2, 3) on input row 0 (minus za = 1).
  EXPECT_EQ(out[0], 5 + 2 * 0 + 3 * 1);
  EXPECT_EQ(out[1], 5 + 2 * 1 + 3 * 2);
  // Row 1: (1,-1) on input row 0, (2,3) on input row 1.
  EXPECT_EQ(out[2], 5 + 1 * 0 - 1 * 1 + 2 * 3 + 3 * 4);
  EXPECT_EQ(out[3], 5 + 1 * 1 - 1 * 2 + 2 * 4 + 3 * 5);
  EXPECT_EQ(out[4], 5 + 1 * 3 - 1 * 4 + 2 * 6 + 3 * 7);
  EXPECT_EQ(out[5], 5 + 1 * 4 - 1 * 5 + 2 * 7 + 3 * 8);
}

TEST(Conv2dReference, DepthwiseMultiplierReadsChannelOverMultiplier) {
  // 1x1x1x2 input, depthwise multiplier 2: output channel co reads input channel co / 2.
  Conv2dProblem p = shape(1, 1, 1, 2, 4, 1, 1, 1, 0, 2);
  p.out_type = DType::s32;
  p.has_bias = false;
  const std::uint8_t in[2] = {10, 20};
  const std::int8_t w[4] = {1, 2, 3, 4};
  std::int32_t out[4] = {};
  conv2d_reference(p, in, w, nullptr, out);
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[1], 20);
  EXPECT_EQ(out[2], 60);
  EXPECT_EQ(out[3], 80);
}

// Padding holds the zero point: the reference on a padded problem equals the reference on the
// input padded explicitly with za and no padding.
TEST(Conv2dReference, PaddingEqualsExplicitZeroPointBorder) {
  for (DType a_type : {DType::u8, DType::s8}) {
    Conv2dProblem p = shape(2, 4, 5, 3, 4, 3, 3, 2);
    p.pad_top = 2;
    p.pad_bottom = 1;
    p.pad_left = 0;
    p.pad_right = 3;
    testing::quantize_problem(p, ConvQuant{a_type, DType::s32, true, true}, 3);
    const testing::ConvData d = testing::make_data(p, 4);
    std::vector<std::uint8_t> expected(testing::output_bytes(p));
    conv2d_reference(p, d.input.data(), d.weights.data(), d.bias.data(), expected.data());

    Conv2dProblem q = p;
    q.in_h = p.in_h + p.pad_top + p.pad_bottom;
    q.in_w = p.in_w + p.pad_left + p.pad_right;
    q.pad_top = q.pad_bottom = q.pad_left = q.pad_right = 0;
    std::vector<std::uint8_t> padded(static_cast<std::size_t>(q.batch * q.in_h * q.in_w * q.in_c),
                                     static_cast<std::uint8_t>(p.a_zero_point));
    for (std::int64_t n = 0; n < p.batch; ++n) {
      for (std::int64_t h = 0; h < p.in_h; ++h) {
        std::memcpy(padded.data() + ((n * q.in_h + h + p.pad_top) * q.in_w + p.pad_left) * q.in_c,
                    d.input.data() + (n * p.in_h + h) * p.in_w * p.in_c, static_cast<std::size_t>(p.in_w * p.in_c));
      }
    }
    std::vector<std::uint8_t> got(testing::output_bytes(q));
    ASSERT_EQ(got.size(), expected.size());
    conv2d_reference(q, padded.data(), d.weights.data(), d.bias.data(), got.data());
    EXPECT_EQ(got, expected) << to_string(a_type);
  }
}

// A 1x1 stride-1 convolution is the GEMM of the NHWC input with the weights.
TEST(Conv2dReference, OneByOneEqualsGemmReference) {
  Conv2dProblem p = shape(2, 3, 4, 17, 9, 1, 1);
  testing::quantize_problem(p, ConvQuant{DType::s8, DType::u8, true, true, true, RoundingMode::upward}, 5);
  const testing::ConvData d = testing::make_data(p, 6);
  std::vector<std::uint8_t> conv(testing::output_bytes(p)), gemm(testing::output_bytes(p));
  conv2d_reference(p, d.input.data(), d.weights.data(), d.bias.data(), conv.data());
  const GemmProblem g = p.as_gemm();
  ASSERT_EQ(g.m, 24);
  ASSERT_EQ(g.k, 17);
  gemm_reference(g, d.input.data(), 17, d.weights.data(), 9, d.bias.data(), gemm.data(), 9);
  EXPECT_EQ(conv, gemm);
}

TEST(Conv2dProblem, ShapesAndGemmView) {
  Conv2dProblem p = shape(1, 73, 73, 80, 192, 3, 3);
  EXPECT_EQ(p.out_h(), 71);
  EXPECT_EQ(p.out_w(), 71);
  const GemmProblem g = p.as_gemm();
  EXPECT_EQ(g.m, 71 * 71);
  EXPECT_EQ(g.n, 192);
  EXPECT_EQ(g.k, 720);
  Conv2dProblem s = shape(1, 112, 112, 96, 96, 3, 3, 2, 0, 96);
  s.pad_bottom = s.pad_right = 1;
  EXPECT_EQ(s.out_h(), 56);
  EXPECT_TRUE(s.depthwise());
  EXPECT_EQ(s.as_gemm().n, 1);
  EXPECT_EQ(s.as_gemm().k, 9);
  Conv2dProblem d = shape(1, 9, 9, 4, 4, 3, 3, 1, 2);
  d.dilation_h = d.dilation_w = 2;
  EXPECT_EQ(d.out_h(), 9);
}

TEST(Conv2dProblem, ValidationNamesTheField) {
  auto message = [](Conv2dProblem p) {
    p.out_type = DType::s32;  // no requantization needed: each case breaks one shape field
    try {
      p.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Conv2dProblem p = shape(1, 5, 5, 6, 4, 3, 3);
  EXPECT_EQ(message(p), "");
  p.groups = 4;
  EXPECT_NE(message(p).find("in_c 6 is not divisible by groups 4"), std::string::npos) << message(p);
  p = shape(1, 2, 2, 3, 3, 5, 5);
  EXPECT_NE(message(p).find("kernel height"), std::string::npos) << message(p);
  p = shape(1, 5, 5, 3, 3, 3, 3);
  p.stride_w = 0;
  EXPECT_NE(message(p).find("stride_w"), std::string::npos) << message(p);
  p = shape(1, 5, 5, 3, 3, 3, 3);
  p.b_zero_points = {0, 0};
  EXPECT_NE(message(p).find("b_zero_points"), std::string::npos) << message(p);
  p = shape(1, 5, 5, 3, 3, 3, 3);
  p.a_zero_point = 300;
  EXPECT_NE(message(p).find("a_zero_point"), std::string::npos) << message(p);
}

TEST(Conv2dConfig, CheckExplainsInvalidCombinations) {
  Conv2dProblem p = shape(1, 5, 5, 8, 8, 3, 3, 1, 1);
  testing::quantize_problem(p, ConvQuant{}, 1);
  Conv2dConfig c = conv2d_default_config(p);
  EXPECT_EQ(conv2d_check_config(p, c), "");
  c.algo = ConvAlgo::gemm_1x1;
  EXPECT_NE(conv2d_check_config(p, c).find("1x1"), std::string::npos) << conv2d_check_config(p, c);
  c.algo = ConvAlgo::depthwise;
  EXPECT_NE(conv2d_check_config(p, c).find("depthwise"), std::string::npos) << conv2d_check_config(p, c);

  Conv2dProblem dw = shape(1, 5, 5, 8, 8, 3, 3, 1, 1, 8);
  testing::quantize_problem(dw, ConvQuant{}, 1);
  Conv2dConfig d = conv2d_default_config(dw);
  EXPECT_EQ(d.algo, ConvAlgo::depthwise);
  EXPECT_EQ(conv2d_check_config(dw, d), "");
  d.dw_channel_tile = 12;
  EXPECT_NE(conv2d_check_config(dw, d).find("available"), std::string::npos) << conv2d_check_config(dw, d);
#if defined(__x86_64__)  // other builds have no avx512vnni kernels at all
  if (!cpu_features().usable(Isa::avx512vnni)) {
    d.gemm.isa = Isa::avx512vnni;
    d.dw_channel_tile = 16;
    EXPECT_NE(conv2d_check_config(dw, d).find("not usable"), std::string::npos) << conv2d_check_config(dw, d);
  }
#endif
  Conv2dConfig bad = c;
  bad.algo = ConvAlgo::im2col;
  bad.gemm.mr = 3;
  bad.gemm.nr = 5;
  EXPECT_NE(conv2d_check_config(p, bad), "");
  EXPECT_THROW(Conv2dOp::prepare(p, bad, nullptr, nullptr), std::invalid_argument);
}

TEST(Conv2dConfig, DefaultsPickTheExpectedAlgorithm) {
  Conv2dProblem pw = shape(1, 7, 7, 32, 64, 1, 1);
  testing::quantize_problem(pw, ConvQuant{}, 1);
  EXPECT_EQ(conv2d_default_config(pw).algo, ConvAlgo::gemm_1x1);
  Conv2dProblem full = shape(1, 7, 7, 32, 64, 3, 3, 1, 1);
  testing::quantize_problem(full, ConvQuant{}, 1);
  const ConvAlgo algo = conv2d_default_config(full).algo;
  EXPECT_TRUE(algo == ConvAlgo::implicit || algo == ConvAlgo::indirect || algo == ConvAlgo::im2col);
  // Where the default family reads A in place, the kernel rows are read from the input itself.
  if (conv2d_default_config(full).gemm.isa == Isa::avx512vnni) {
    EXPECT_EQ(algo, ConvAlgo::implicit);
  }
  if (cpu_features().usable(Isa::avx2)) {
    EXPECT_NE(conv2d_default_config(full).gemm.isa, Isa::scalar);
  }
}

TEST(Conv2dAlgo, NamesRoundTrip) {
  for (ConvAlgo a : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::gemm_1x1, ConvAlgo::depthwise, ConvAlgo::implicit}) {
    EXPECT_EQ(parse_conv_algo(to_string(a)), a);
  }
  EXPECT_FALSE(parse_conv_algo("winograd").has_value());
}

}  // namespace
}  // namespace qtune
