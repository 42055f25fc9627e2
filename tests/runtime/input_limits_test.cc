// The C API refuses what the kernels refuse, through the same checks (RequantParams::check, the
// size limits of qtune/kernels/limits.h): an invalid-argument status with a message naming the
// problem, never a crash or an allocation of an absurd layer.
#include "qtune/qtune.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct SmallGemm {
  std::vector<double> scales = std::vector<double>(4, 0.001);
  std::vector<std::int32_t> b_zero_points{0};
  std::vector<std::int8_t> weights = std::vector<std::int8_t>(16 * 4, 1);
  std::vector<std::int32_t> bias = std::vector<std::int32_t>(4, 0);
  qtune_gemm_desc desc{};

  SmallGemm() {
    desc.m = 8;
    desc.n = 4;
    desc.k = 16;
    desc.quant.a_type = QTUNE_DTYPE_U8;
    desc.quant.a_zero_point = 128;
    desc.quant.b_zero_points = b_zero_points.data();
    desc.quant.b_zero_point_count = 1;
    desc.quant.out_type = QTUNE_DTYPE_S8;
    desc.quant.rounding = QTUNE_ROUNDING_TFLITE;
    desc.quant.scales = scales.data();
    desc.quant.scale_count = scales.size();
    desc.quant.qmin = -128;
    desc.quant.qmax = 127;
    desc.threads = 1;
  }
};

class CApiInputLimits : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qtune_runtime_create(&rt), QTUNE_OK); }
  void TearDown() override {
    qtune_op_destroy(op);
    qtune_runtime_destroy(rt);
  }

  // Prepare must fail with an invalid argument whose message contains `message`.
  void expect_refused(const SmallGemm& g, const std::string& message) {
    EXPECT_EQ(qtune_gemm_prepare(rt, &g.desc, g.weights.data(), g.bias.data(), &op), QTUNE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(op, nullptr);
    EXPECT_NE(std::string(qtune_last_error()).find(message), std::string::npos) << qtune_last_error();
  }

  qtune_runtime* rt = nullptr;
  qtune_op* op = nullptr;
};

TEST_F(CApiInputLimits, OutputZeroPointOutsideTheOutputType) {
  SmallGemm s8;
  s8.desc.quant.out_zero_point = 200;
  expect_refused(s8, "output zero point 200 is outside the range of s8");
  SmallGemm u8;
  u8.desc.quant.out_type = QTUNE_DTYPE_U8;
  u8.desc.quant.qmin = 0;
  u8.desc.quant.qmax = 255;
  u8.desc.quant.out_zero_point = -1;
  expect_refused(u8, "output zero point -1 is outside the range of u8");
}

TEST_F(CApiInputLimits, NanScaleAndUnknownRoundingMode) {
  SmallGemm nan_scale;
  nan_scale.scales[2] = std::nan("");
  expect_refused(nan_scale, "scales[2]");
  SmallGemm unknown_mode;
  const int not_a_mode = 9;  // what a C caller can store
  static_assert(sizeof not_a_mode == sizeof unknown_mode.desc.quant.rounding);
  std::memcpy(&unknown_mode.desc.quant.rounding, &not_a_mode, sizeof not_a_mode);
  EXPECT_EQ(qtune_gemm_prepare(rt, &unknown_mode.desc, unknown_mode.weights.data(), unknown_mode.bias.data(), &op),
            QTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(qtune_last_error()).find("rounding"), std::string::npos) << qtune_last_error();
}

TEST_F(CApiInputLimits, AbsurdShapesAreRefusedBeforeAnythingIsAllocated) {
  SmallGemm huge;  // the weights given are the small ones: nothing may read them for the huge shape
  huge.desc.m = 1000000000;
  huge.desc.k = 1000;
  expect_refused(huge, "the layer needs");
  SmallGemm beyond;
  beyond.desc.n = std::int64_t{1} << 40;
  beyond.desc.quant.scale_count = 1;  // per tensor: the shape itself is what is wrong
  expect_refused(beyond, "n must be in [1, 2^31)");
}

}  // namespace
