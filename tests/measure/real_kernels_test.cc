// Real kernel candidates measure correctly through both measurers.
#include <gtest/gtest.h>

#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/measure.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune {
namespace {

MeasureSettings quick_real_kernels() {
  MeasureSettings s;
  s.warmup_seconds = 0.001;
  s.min_repetition_seconds = 0.002;
  s.repetitions = 3;
  return s;
}

Workload small_gemm() {
  Workload w;
  w.m = 37;
  w.n = 45;
  w.k = 70;
  w.quant = QuantKind{DType::u8, DType::s8, true, true, true, RoundingMode::tflite};
  return w;
}

// The first configuration of the space with the given isa (canonical order).
std::optional<Config> first_with_isa(const KnobSpace& space, Isa isa) {
  for (const Config& c : space.enumerate()) {
    if (c.get("isa") == to_string(isa)) return c;
  }
  return std::nullopt;
}

class RealGemm : public ::testing::TestWithParam<Isa> {};

TEST_P(RealGemm, MeasuresCorrectlyInProcessAndIsolated) {
  const Isa isa = GetParam();
  if (!cpu_features().usable(isa)) GTEST_SKIP() << to_string(isa) << " is not usable on this CPU";
  const Workload w = small_gemm();
  const KnobSpace space = space_for(w, cpu_features());
  const auto config = first_with_isa(space, isa);
  ASSERT_TRUE(config) << "no " << to_string(isa) << " GEMM configuration in the space";
  const MeasureResult in_process = measure_in_process(w, *config, quick_real_kernels());
  ASSERT_TRUE(in_process.ok()) << to_string(in_process.error) << ": " << in_process.error_message;
  EXPECT_GT(in_process.gops, 0);
  IsolatedMeasurer measurer;
  const MeasureResult isolated = measurer.measure(w, *config, quick_real_kernels());
  ASSERT_TRUE(isolated.ok()) << to_string(isolated.error) << ": " << isolated.error_message;
  EXPECT_EQ(isolated.worker_pid, measurer.worker_pid());
  EXPECT_EQ(isolated.stats.repetitions, 3);
}

INSTANTIATE_TEST_SUITE_P(Isas, RealGemm, ::testing::Values(Isa::scalar, Isa::avx2, Isa::avx512bw, Isa::avxvnni, Isa::avx512vnni),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(RealGemmSpace, EveryConfigOfASmallSpaceIsCorrect) {
  // Every valid configuration of a tiny s32 GEMM passes the bit-exact check (no timing needed).
  Workload w;
  w.m = 9;
  w.n = 20;
  w.k = 130;
  w.quant = QuantKind{DType::s8, DType::s32, true, true, false, RoundingMode::tflite};
  const KnobSpace space = space_for(w, cpu_features());
  MeasureSettings s = quick_real_kernels();
  s.repetitions = 1;
  s.warmup_seconds = 0;
  s.min_repetition_seconds = 1e-4;
  int checked = 0;
  for (const Config& c : space.enumerate()) {
    if (c.get("threads") != "1") continue;
    // Every library configuration the space offers (checked against the reference like the rest).
    if (!to_library_config(c) && c.get("kc") != "0" && c.get("kc") != "64") continue;
    const MeasureResult r = measure_in_process(w, c, s);
    ASSERT_TRUE(r.ok()) << c.key() << ": " << to_string(r.error) << " " << r.error_message;
    ++checked;
  }
  EXPECT_GT(checked, 4);
}

TEST(RealConv2d, DefaultAndDepthwiseConfigsMeasure) {
  Workload conv;
  conv.op = OpKind::conv2d;
  conv.in_h = conv.in_w = 9;
  conv.in_c = 16;
  conv.out_c = 24;
  conv.kernel_h = conv.kernel_w = 3;
  conv.pad_top = conv.pad_bottom = conv.pad_left = conv.pad_right = 1;
  Workload dw = conv;
  dw.out_c = dw.groups = 16;
  for (const Workload& w : {conv, dw}) {
    const Config c = default_config(w, cpu_features());
    const MeasureResult r = measure_in_process(w, c, quick_real_kernels());
    ASSERT_TRUE(r.ok()) << w.key() << " " << c.key() << ": " << r.error_message;
    EXPECT_GT(r.gops, 0);
  }
}

}  // namespace
}  // namespace qtune
