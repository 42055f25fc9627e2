// The C API: successful runs match the reference, and every error path (bad file, bad shape,
// null pointers, wrong operator) returns a status with a message instead of crashing.
#include "qtune/qtune.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

struct CGemm {
  std::vector<double> scales{0.0009, 0.0011, 0.0013, 0.0010};
  std::vector<std::int32_t> b_zero_points{0};
  qtune_gemm_desc desc{};
  std::vector<std::uint8_t> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> bias;

  CGemm(std::int64_t m, std::int64_t n, std::int64_t k) {
    desc.m = m;
    desc.n = n;
    desc.k = k;
    desc.quant.a_type = QTUNE_DTYPE_U8;
    desc.quant.a_zero_point = 128;
    desc.quant.b_zero_points = b_zero_points.data();
    desc.quant.b_zero_point_count = 1;
    desc.quant.out_type = QTUNE_DTYPE_S8;
    desc.quant.rounding = QTUNE_ROUNDING_TFLITE;
    scales.resize(static_cast<std::size_t>(n), 0.001);
    desc.quant.scales = scales.data();
    desc.quant.scale_count = scales.size();
    desc.quant.out_zero_point = -3;
    desc.quant.qmin = -128;
    desc.quant.qmax = 127;
    desc.threads = 1;
    a = random_bytes(static_cast<std::size_t>(m * k), 5);
    b = random_weights(static_cast<std::size_t>(k * n), 6);
    bias = random_bias(static_cast<std::size_t>(n), 7);
  }
};

class CApiTest : public ::testing::Test {
 protected:
  void TearDown() override {
    qtune_op_destroy(op);
    qtune_runtime_destroy(rt);
  }
  qtune_runtime* rt = nullptr;
  qtune_op* op = nullptr;
};

TEST_F(CApiTest, GemmFromLogRunsTheTunedConfigurationBitExact) {
  const Workload w = gemm_workload(37, 24, 96);
  const Config tuned = non_default_config(w);
  TempDir dir;
  const std::string log = dir.file("best.jsonl");
  // The C descriptor's quantization kind: u8 activations with a zero point, per-channel scales.
  write_log(log, {measurement(w.key(), current_target_key(), tuned.key(), 10.0)});
  ASSERT_EQ(qtune_runtime_create_from_file(log.c_str(), &rt), QTUNE_OK) << qtune_last_error();
  EXPECT_STREQ(qtune_last_error(), "");
  EXPECT_EQ(qtune_runtime_tuned_count(rt), 1u);
  EXPECT_EQ(std::string(qtune_runtime_target_key(rt)), current_target_key());

  CGemm g(37, 24, 96);
  ASSERT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), g.bias.data(), &op), QTUNE_OK) << qtune_last_error();
  EXPECT_EQ(std::string(qtune_op_config_key(op)), tuned.key());
  EXPECT_EQ(std::string(qtune_op_workload_key(op)), w.key());
  EXPECT_EQ(qtune_op_config_source(op), QTUNE_SOURCE_TUNED);
  EXPECT_STREQ(qtune_op_fallback_reason(op), "");

  std::vector<std::int8_t> got(37 * 24), want(37 * 24);
  ASSERT_EQ(qtune_gemm_run(op, g.a.data(), 96, got.data(), 24), QTUNE_OK) << qtune_last_error();
  ASSERT_EQ(qtune_gemm_reference(&g.desc, g.a.data(), 96, g.b.data(), g.bias.data(), want.data(), 24), QTUNE_OK)
      << qtune_last_error();
  EXPECT_EQ(got, want);
  EXPECT_EQ(qtune_runtime_fallback_count(rt), 0u);
}

TEST_F(CApiTest, UntunedConvFallsBackAndIsReported) {
  ASSERT_EQ(qtune_runtime_create(&rt), QTUNE_OK);
  std::vector<double> scales{0.002};
  qtune_conv2d_desc d{};
  d.batch = 1;
  d.in_h = d.in_w = 9;
  d.in_c = 8;
  d.out_c = 16;
  d.kernel_h = d.kernel_w = 3;
  d.stride_h = d.stride_w = 1;
  d.dilation_h = d.dilation_w = 1;
  d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
  d.groups = 1;
  d.quant.a_type = QTUNE_DTYPE_S8;
  d.quant.a_zero_point = 5;
  d.quant.out_type = QTUNE_DTYPE_U8;
  d.quant.rounding = QTUNE_ROUNDING_FP32;
  d.quant.scales = scales.data();
  d.quant.scale_count = 1;
  d.quant.out_zero_point = 128;
  d.quant.qmin = 0;
  d.quant.qmax = 255;
  d.threads = 1;
  const auto input = random_bytes(9 * 9 * 8, 1);
  const auto weights = random_weights(3 * 3 * 8 * 16, 2);
  ASSERT_EQ(qtune_conv2d_prepare(rt, &d, weights.data(), nullptr, &op), QTUNE_OK) << qtune_last_error();
  EXPECT_EQ(qtune_op_config_source(op), QTUNE_SOURCE_HEURISTIC);
  std::vector<std::uint8_t> got(9 * 9 * 16), want(9 * 9 * 16);
  ASSERT_EQ(qtune_conv2d_run(op, input.data(), got.data()), QTUNE_OK) << qtune_last_error();
  ASSERT_EQ(qtune_conv2d_reference(&d, input.data(), weights.data(), nullptr, want.data()), QTUNE_OK);
  EXPECT_EQ(got, want);

  ASSERT_EQ(qtune_runtime_fallback_count(rt), 1u);
  const char *workload = nullptr, *config = nullptr, *reason = nullptr;
  ASSERT_EQ(qtune_runtime_fallback(rt, 0, &workload, &config, &reason), QTUNE_OK);
  EXPECT_EQ(std::string(workload), std::string(qtune_op_workload_key(op)));
  EXPECT_EQ(std::string(config), std::string(qtune_op_config_key(op)));
  EXPECT_NE(std::string(reason).find("not tuned"), std::string::npos) << reason;
  EXPECT_EQ(qtune_runtime_fallback(rt, 1, &workload, &config, &reason), QTUNE_ERROR_OUT_OF_RANGE);

  // A conv operator is not a gemm.
  std::vector<std::int8_t> c(16);
  EXPECT_EQ(qtune_gemm_run(op, input.data(), 8, c.data(), 16), QTUNE_ERROR_WRONG_OPERATOR);
  EXPECT_NE(std::string(qtune_last_error()).find("not a gemm"), std::string::npos);
}

// With no tuning data a layer runs the heuristic default for its own thread budget: an
// application that prepares with threads = 2 gets two threads, not the kernels' one-thread default.
TEST_F(CApiTest, UntunedLayersGetTheDefaultForTheirThreadBudget) {
  ASSERT_EQ(qtune_runtime_create(&rt), QTUNE_OK);
  CGemm g(200, 64, 96);
  for (int threads : {1, 2}) {
    g.desc.threads = threads;
    qtune_op* gemm = nullptr;
    ASSERT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), g.bias.data(), &gemm), QTUNE_OK) << qtune_last_error();
    EXPECT_EQ(qtune_op_config_source(gemm), QTUNE_SOURCE_HEURISTIC);
    GemmProblem shape;  // the default configuration depends on the shape and the CPU only
    shape.m = g.desc.m;
    shape.n = g.desc.n;
    shape.k = g.desc.k;
    GemmConfig expected = gemm_default_config(shape);
    expected.threads = threads;
    EXPECT_EQ(std::string(qtune_op_config_key(gemm)), from_gemm_config(expected).key());
    std::vector<std::int8_t> got(200 * 64), want(200 * 64);
    ASSERT_EQ(qtune_gemm_run(gemm, g.a.data(), 96, got.data(), 64), QTUNE_OK) << qtune_last_error();
    ASSERT_EQ(qtune_gemm_reference(&g.desc, g.a.data(), 96, g.b.data(), g.bias.data(), want.data(), 64), QTUNE_OK);
    EXPECT_EQ(got, want) << "threads " << threads;
    qtune_op_destroy(gemm);
  }
}

TEST_F(CApiTest, BadFilesAreFileErrors) {
  TempDir dir;
  EXPECT_EQ(qtune_runtime_create_from_file(dir.file("missing.db").c_str(), &rt), QTUNE_ERROR_FILE);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(std::string(qtune_last_error()).find("missing.db"), std::string::npos) << qtune_last_error();
  const std::string garbage = dir.file("garbage.jsonl");
  std::ofstream(garbage) << "{not json\n";
  EXPECT_EQ(qtune_runtime_create_from_file(garbage.c_str(), &rt), QTUNE_ERROR_FILE);
  EXPECT_NE(std::string(qtune_last_error()), "");
  const std::string fake_db = dir.file("fake.db");
  std::ofstream(fake_db) << std::string("SQLite format 3\0and then nothing useful", 39);
  EXPECT_EQ(qtune_runtime_create_from_file(fake_db.c_str(), &rt), QTUNE_ERROR_FILE);
  EXPECT_EQ(qtune_runtime_create_from_file_for_target(garbage.c_str(), nullptr, &rt), QTUNE_ERROR_NULL_ARGUMENT);
}

TEST_F(CApiTest, NullPointersAreErrors) {
  EXPECT_EQ(qtune_runtime_create(nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_runtime_create_from_file(nullptr, &rt), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_NE(std::string(qtune_last_error()).find("path"), std::string::npos);
  ASSERT_EQ(qtune_runtime_create(&rt), QTUNE_OK);
  CGemm g(8, 4, 16);
  EXPECT_EQ(qtune_gemm_prepare(nullptr, &g.desc, g.b.data(), nullptr, &op), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_gemm_prepare(rt, nullptr, g.b.data(), nullptr, &op), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_gemm_prepare(rt, &g.desc, nullptr, nullptr, &op), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), nullptr, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(op, nullptr);
  std::vector<std::int8_t> c(8 * 4);
  EXPECT_EQ(qtune_gemm_run(nullptr, g.a.data(), 16, c.data(), 4), QTUNE_ERROR_NULL_ARGUMENT);
  ASSERT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), nullptr, &op), QTUNE_OK) << qtune_last_error();
  EXPECT_EQ(qtune_gemm_run(op, nullptr, 16, c.data(), 4), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_gemm_run(op, g.a.data(), 16, nullptr, 4), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_conv2d_run(nullptr, g.a.data(), c.data()), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_runtime_set_warning_callback(nullptr, nullptr, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_runtime_fallback(nullptr, 0, nullptr, nullptr, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_op_config_key(nullptr), nullptr);
  EXPECT_EQ(qtune_runtime_target_key(nullptr), nullptr);
  EXPECT_EQ(qtune_runtime_fallback_count(nullptr), 0u);
  qtune_op_destroy(nullptr);
  qtune_runtime_destroy(nullptr);
}

TEST_F(CApiTest, BadShapesAndParametersAreInvalidArguments) {
  ASSERT_EQ(qtune_runtime_create(&rt), QTUNE_OK);
  auto expect_invalid = [&](CGemm& g, const char* what) {
    EXPECT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), g.bias.data(), &op), QTUNE_ERROR_INVALID_ARGUMENT) << what;
    EXPECT_EQ(op, nullptr) << what;
    EXPECT_NE(std::string(qtune_last_error()), "") << what;
  };
  {
    CGemm g(8, 4, 16);
    g.desc.m = 0;
    expect_invalid(g, "m = 0");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.k = -5;
    expect_invalid(g, "k < 0");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.threads = 0;
    expect_invalid(g, "threads = 0");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.quant.scale_count = 3;
    expect_invalid(g, "3 scales for 4 channels");
  }
  {
    CGemm g(8, 4, 16);
    const int not_a_dtype = 42;  // what a C caller can store; a C++ enum cast would be undefined
    static_assert(sizeof not_a_dtype == sizeof g.desc.quant.a_type);
    std::memcpy(&g.desc.quant.a_type, &not_a_dtype, sizeof not_a_dtype);
    expect_invalid(g, "unknown dtype");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.quant.a_zero_point = 300;
    expect_invalid(g, "zero point out of range");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.ldb = 2;
    expect_invalid(g, "ldb < n");
  }
  {
    CGemm g(8, 4, 16);
    g.desc.quant.scales = nullptr;
    expect_invalid(g, "requantized output without scales");
  }
  CGemm g(8, 4, 16);
  ASSERT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), g.bias.data(), &op), QTUNE_OK) << qtune_last_error();
  std::vector<std::int8_t> c(8 * 4);
  EXPECT_EQ(qtune_gemm_run(op, g.a.data(), 15, c.data(), 4), QTUNE_ERROR_INVALID_ARGUMENT);  // lda < k
  EXPECT_EQ(qtune_gemm_run(op, g.a.data(), 16, c.data(), 3), QTUNE_ERROR_INVALID_ARGUMENT);  // ldc < n
  EXPECT_EQ(qtune_gemm_run(op, g.a.data(), 16, c.data(), 4), QTUNE_OK);
  EXPECT_STREQ(qtune_last_error(), "");
}

TEST_F(CApiTest, WarningCallbackReceivesForeignIsaWarningOnce) {
  if (cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "this CPU can run avx512vnni";
  std::string tile = "16x16";
  for (const auto& info : gemm_microkernels())
    if (info.isa == Isa::avx512vnni) tile = std::to_string(info.mr) + "x" + std::to_string(info.nr);
  const std::string config =
      full_space(OpKind::gemm).parse("isa=avx512vnni;tile=" + tile + ";kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1").key();
  TempDir dir;
  const std::string log = dir.file("foreign.jsonl");
  write_log(log, {measurement(gemm_workload(8, 4, 16).key(), current_target_key(), config, 1.0)});
  ASSERT_EQ(qtune_runtime_create_from_file(log.c_str(), &rt), QTUNE_OK) << qtune_last_error();
  std::vector<std::string> messages;
  ASSERT_EQ(qtune_runtime_set_warning_callback(
                rt, [](const char* m, void* user) { static_cast<std::vector<std::string>*>(user)->push_back(m); },
                &messages),
            QTUNE_OK);
  for (int i = 0; i < 2; ++i) {
    CGemm g(8, 4, 16);
    ASSERT_EQ(qtune_gemm_prepare(rt, &g.desc, g.b.data(), g.bias.data(), &op), QTUNE_OK) << qtune_last_error();
    EXPECT_EQ(qtune_op_config_source(op), QTUNE_SOURCE_HEURISTIC);
    std::vector<std::int8_t> got(32), want(32);
    ASSERT_EQ(qtune_gemm_run(op, g.a.data(), 16, got.data(), 4), QTUNE_OK);
    ASSERT_EQ(qtune_gemm_reference(&g.desc, g.a.data(), 16, g.b.data(), g.bias.data(), want.data(), 4), QTUNE_OK);
    EXPECT_EQ(got, want);
    qtune_op_destroy(op);
    op = nullptr;
  }
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("avx512vnni"), std::string::npos);
}

TEST(CApiStrings, StatusStringsAndVersion) {
  EXPECT_STREQ(qtune_status_string(QTUNE_OK), "ok");
  EXPECT_STREQ(qtune_status_string(QTUNE_ERROR_FILE), "bad file");
  qtune_status not_a_status;
  const int ninety_nine = 99;  // what a C caller can pass; a C++ enum cast would be undefined
  static_assert(sizeof not_a_status == sizeof ninety_nine);
  std::memcpy(&not_a_status, &ninety_nine, sizeof ninety_nine);
  EXPECT_STREQ(qtune_status_string(not_a_status), "unknown status");
  EXPECT_EQ(std::string(qtune_version_string()), version());
}

}  // namespace
}  // namespace qtune::runtime
