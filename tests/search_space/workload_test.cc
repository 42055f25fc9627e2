// Workload keys, validation and the deterministic concrete problems.
#include <gtest/gtest.h>

#include <set>

#include "qtune/search_space/workload.h"

namespace qtune {
namespace {

Workload sample_conv() {
  Workload w;
  w.op = OpKind::conv2d;
  w.batch = 1;
  w.in_h = 75;
  w.in_w = 75;
  w.in_c = 80;
  w.out_c = 192;
  w.kernel_h = w.kernel_w = 3;
  w.pad_top = 1;
  w.pad_bottom = 2;
  w.pad_left = 0;
  w.pad_right = 3;
  w.quant.a_type = DType::s8;
  w.quant.rounding = RoundingMode::fp32;
  w.quant.per_channel = false;
  w.threads = 2;
  return w;
}

TEST(WorkloadKey, GemmKeyIsTheDocumentedOne) {
  Workload w;
  w.m = 784;
  w.n = 128;
  w.k = 1152;
  EXPECT_EQ(w.key(), "gemm:m=784;n=128;k=1152;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1");
  EXPECT_EQ(w.describe(), "gemm 784x128x1152");
  EXPECT_DOUBLE_EQ(w.gops(), 2.0 * 784 * 128 * 1152 / 1e9);
}

TEST(WorkloadKey, RoundTripsForGemmAndConv) {
  Workload g;
  g.m = 3;
  g.n = 5;
  g.k = 7;
  g.quant = QuantKind{DType::s8, DType::s32, false, true, false, RoundingMode::upward};
  for (const Workload& w : {g, sample_conv()}) {
    const Workload back = Workload::parse_key(w.key());
    EXPECT_EQ(back.key(), w.key());
    EXPECT_EQ(back.quant, w.quant);
    EXPECT_EQ(back.threads, w.threads);
  }
  const Workload c = Workload::parse_key(sample_conv().key());
  EXPECT_EQ(c.pad_bottom, 2);
  EXPECT_EQ(c.pad_right, 3);
  EXPECT_EQ(sample_conv().key(),
            "conv2d:n=1;h=75;w=75;c=80;oc=192;kh=3;kw=3;sh=1;sw=1;dh=1;dw=1;pad=1,2,0,3;g=1;a=s8;out=s8;azp=1;bzp=0;"
            "q=tensor;round=fp32;threads=2");
}

std::string key_error(const std::string& key) {
  try {
    Workload::parse_key(key);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(WorkloadKey, ErrorsNameTheField) {
  const std::string base = "gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
  EXPECT_EQ(key_error(base), "(no error)");
  EXPECT_NE(key_error("gemm:n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1").find("missing field 'm'"),
            std::string::npos);
  EXPECT_NE(key_error(base + ";x=1").find("unknown field 'x'"), std::string::npos);
  EXPECT_NE(key_error("gemm:m=eight;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1").find("'m'"),
            std::string::npos);
  EXPECT_NE(key_error("gemm:m=0;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1").find("'m'"),
            std::string::npos);
  EXPECT_NE(key_error("gemm:m=8;n=8;k=8;a=u9;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1").find("'a'"),
            std::string::npos);
  EXPECT_NE(key_error("gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=banker;threads=1").find("'round'"),
            std::string::npos);
  EXPECT_NE(key_error("matmul:m=8").find("unknown operator 'matmul'"), std::string::npos);
  EXPECT_NE(key_error("gemm m=8").find("expected"), std::string::npos);
  std::string conv = sample_conv().key();
  conv.replace(conv.find("pad=1,2,0,3"), 11, "pad=1,2,0");
  EXPECT_NE(key_error(conv).find("'pad'"), std::string::npos);
  std::string groups = sample_conv().key();
  groups.replace(groups.find("g=1"), 3, "g=3");
  EXPECT_NE(key_error(groups).find("'g'"), std::string::npos);
}

// A fused ReLU is named in the key only when set, so that the keys of earlier versions (and of
// every layer without one) stay what they were; its problems draw the zero point at qmin.
TEST(WorkloadKey, AFusedReluIsAnOptionalFieldAndPutsTheZeroPointAtTheBottom) {
  const std::string before = "gemm:m=8;n=8;k=8;a=u8;out=u8;azp=0;bzp=1;q=tensor;round=tflite;threads=1";
  const Workload plain = Workload::parse_key(before);
  EXPECT_FALSE(plain.quant.relu);
  EXPECT_EQ(plain.key(), before);
  Workload relu = plain;
  relu.quant.relu = true;
  EXPECT_EQ(relu.key(), "gemm:m=8;n=8;k=8;a=u8;out=u8;azp=0;bzp=1;q=tensor;round=tflite;relu=1;threads=1");
  EXPECT_EQ(Workload::parse_key(relu.key()).quant, relu.quant);
  EXPECT_EQ(Workload::parse_key(before + ";relu=0").key(), before);  // the default, spelled out
  EXPECT_NE(key_error(before + ";relu=2").find("'relu'"), std::string::npos);
  EXPECT_NE(key_error(before + ";relu=1;relu=1").find("given twice"), std::string::npos);
  std::string s32 = relu.key();
  s32.replace(s32.find("out=u8"), 6, "out=s32");
  EXPECT_NE(key_error(s32).find("'relu'"), std::string::npos);

  for (const DType out : {DType::u8, DType::s8}) {
    relu.quant.out_type = out;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const GemmProblem p = relu.gemm_problem(seed);
      EXPECT_EQ(p.requant.output_zero_point, p.requant.qmin) << to_string(out);
      EXPECT_EQ(p.requant.qmax - p.requant.qmin, 255);
      const GemmProblem q = plain.gemm_problem(seed);
      EXPECT_GT(q.requant.output_zero_point, q.requant.qmin) << "without a ReLU the zero point is inside the range";
    }
  }
}

TEST(Workload, ConvGopsAndDescribe) {
  Workload w = sample_conv();
  w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = 0;
  // 73 x 73 outputs, 192 channels, 3*3*80 MACs each.
  EXPECT_DOUBLE_EQ(w.gops(), 2.0 * 73 * 73 * 192 * 720 / 1e9);
  EXPECT_EQ(w.describe(), "conv 75x75x80 3x3/1 ->192");
  w.groups = w.in_c = w.out_c = 32;
  EXPECT_EQ(w.describe(), "dwconv 75x75x32 3x3/1 ->32");
}

TEST(Workload, ProblemsAreDeterministicAndMatchTheQuantKind) {
  Workload w;
  w.m = 64;
  w.n = 48;
  w.k = 720;
  w.quant = QuantKind{DType::s8, DType::u8, true, true, true, RoundingMode::tonearest};
  const GemmProblem a = w.gemm_problem(5), b = w.gemm_problem(5), c = w.gemm_problem(6);
  EXPECT_EQ(a.a_zero_point, b.a_zero_point);
  EXPECT_EQ(a.requant.scales, b.requant.scales);
  EXPECT_NE(a.requant.scales, c.requant.scales);
  EXPECT_NO_THROW(a.validate());
  EXPECT_NE(a.a_zero_point, 0);
  ASSERT_EQ(a.b_zero_points.size(), 48u);
  for (int zp : a.b_zero_points) EXPECT_NE(zp, 0);
  ASSERT_EQ(a.requant.channels(), 48u);
  EXPECT_EQ(a.requant.qmin, 0);
  EXPECT_EQ(a.requant.qmax, 255);
  EXPECT_EQ(a.requant.mode, RoundingMode::tonearest);
  // Distinct per-channel scales, small enough that a K=720 accumulator is not always clamped.
  EXPECT_GT(std::set<double>(a.requant.scales.begin(), a.requant.scales.end()).size(), 40u);
  for (double s : a.requant.scales) {
    EXPECT_GT(s, 1e-5);
    EXPECT_LT(s, 1e-2);
  }

  w.quant = QuantKind{DType::u8, DType::s32, false, false, false, RoundingMode::tflite};
  const GemmProblem s32 = w.gemm_problem();
  EXPECT_EQ(s32.a_zero_point, 0);
  EXPECT_EQ(s32.b_zero_points, std::vector<std::int32_t>{0});
  EXPECT_NO_THROW(s32.validate());

  Workload conv = sample_conv();
  const Conv2dProblem p = conv.conv2d_problem();
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(p.requant.channels(), 1u);  // per tensor
  EXPECT_EQ(p.requant.qmin, -128);
  EXPECT_THROW(conv.gemm_problem(), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
