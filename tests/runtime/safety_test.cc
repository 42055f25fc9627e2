// Tuning data naming an instruction set this CPU lacks (a log made on an AVX-512 / AMX machine)
// is never executed: those layers fall back, with one warning per missing instruction set.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

// A configuration key for `isa` that full_space accepts (a tile compiled for it, else one of the
// grid tiles other builds may have), with the remaining knobs of a valid configuration.
std::string foreign_gemm_config_key(Isa isa) {
  std::string tile = "16x16";
  for (const auto& info : gemm_microkernels()) {
    if (info.isa == isa) {
      tile = std::to_string(info.mr) + "x" + std::to_string(info.nr);
      break;
    }
  }
  const std::string key = "isa=" + std::string(to_string(isa)) + ";tile=" + tile +
                          ";kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1";
  return full_space(OpKind::gemm).parse(key).key();
}

class ForeignIsaTest : public ::testing::TestWithParam<Isa> {};

TEST_P(ForeignIsaTest, LayersFallBackWithOneWarning) {
  const Isa isa = GetParam();
  if (cpu_features().usable(isa))
    GTEST_SKIP() << "this CPU can run " << to_string(isa) << ": nothing to fall back from";

  Target elsewhere = current_target();
  elsewhere.cpu = "Tuning machine with " + std::string(to_string(isa));
  elsewhere.isas.push_back(isa);
  const std::string config_key = foreign_gemm_config_key(isa);
  const Workload first = gemm_workload(64, 64, 128);
  const Workload second = gemm_workload(128, 64, 256);

  TempDir dir;
  const std::string log = dir.file("foreign.jsonl");
  write_log(log, {measurement(first.key(), elsewhere.key(), config_key, 100.0),
                  measurement(second.key(), elsewhere.key(), config_key, 200.0)});
  WarningCollector warnings;
  const Runtime rt = Runtime::from_log(log, warnings.options(elsewhere.key()));
  ASSERT_EQ(rt.tuned_workloads(), 2u);

  for (const Workload& w : {first, second, gemm_workload(100, 64, 128)}) {
    const GemmCase layer(w);
    const PreparedGemm op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::heuristic) << op.selection().reason;
    EXPECT_TRUE(cpu_features().usable(op.config().isa));
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  ASSERT_EQ(warnings.messages.size(), 1u) << "one warning per cause, not per layer";
  EXPECT_NE(warnings.messages[0].find(std::string(to_string(isa))), std::string::npos) << warnings.messages[0];
  const auto report = rt.fallbacks();
  ASSERT_EQ(report.size(), 3u);
  EXPECT_NE(report[0].reason.find("not usable on this CPU"), std::string::npos) << report[0].reason;
}

INSTANTIATE_TEST_SUITE_P(X86, ForeignIsaTest, ::testing::Values(Isa::avx512vnni, Isa::amx, Isa::avxvnni),
                         [](const auto& info) { return std::string(to_string(info.param)); });
INSTANTIATE_TEST_SUITE_P(Arm, ForeignIsaTest, ::testing::Values(Isa::i8mm, Isa::dotprod),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(ForeignIsa, UsableNeighbourIsPreferredOverAnUnusableExactMatch) {
  if (cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "this CPU can run avx512vnni";
  const Workload layer_shape = gemm_workload(64, 64, 128);
  const Workload neighbour = gemm_workload(64, 64, 256);
  const Config usable = non_default_config(neighbour);
  WarningCollector warnings;
  const Runtime rt = Runtime::from_entries(
      {{layer_shape.key(), current_target_key(), foreign_gemm_config_key(Isa::avx512vnni), 1.0},
       {neighbour.key(), current_target_key(), usable.key(), 1.0}},
      warnings.options());
  const GemmCase layer(layer_shape);
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::nearest);
  EXPECT_EQ(op.selection().tuned_workload_key, neighbour.key());
  EXPECT_EQ(layer.run(op), layer.reference());
  EXPECT_EQ(warnings.messages.size(), 1u);
}

TEST(ForeignIsa, DefaultSinkIsStderr) {
  if (cpu_features().usable(Isa::avx512vnni)) GTEST_SKIP() << "this CPU can run avx512vnni";
  const Workload w = gemm_workload(32, 32, 64);
  const Runtime rt =
      Runtime::from_entries({{w.key(), current_target_key(), foreign_gemm_config_key(Isa::avx512vnni), 1.0}});
  ::testing::internal::CaptureStderr();
  (void)rt.select_gemm(GemmCase(w).problem, 1);
  (void)rt.select_gemm(GemmCase(w).problem, 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("qtune: warning:"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace qtune::runtime
