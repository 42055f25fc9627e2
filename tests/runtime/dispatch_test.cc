// Dispatch: tuned shapes get their tuned configuration (from a database and from a log), untuned
// shapes the nearest tuned shape's (adapted) or the heuristic default, and every result is
// bit-exact with the reference.
#include <gtest/gtest.h>

#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

class DispatchTest : public ::testing::Test {
 protected:
  TempDir dir;
  WarningCollector warnings;
  const Workload tuned_gemm = gemm_workload(96, 64, 256);
  const Config tuned_gemm_config = non_default_config(tuned_gemm);

  std::vector<records::MeasurementRecord> tuned_lines() const {
    return {measurement(tuned_gemm.key(), current_target_key(), tuned_gemm_config.key(), 1000.0)};
  }
};

TEST_F(DispatchTest, TunedShapeFromLogGetsItsConfigurationAndMatchesReference) {
  const std::string log = dir.file("best.jsonl");
  write_log(log, tuned_lines());
  const Runtime rt = Runtime::from_log(log, warnings.options());
  EXPECT_EQ(rt.tuned_workloads(), 1u);

  const GemmCase layer(tuned_gemm);
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::tuned);
  EXPECT_EQ(op.selection().config_key, tuned_gemm_config.key());
  EXPECT_EQ(from_gemm_config(op.config()).key(), tuned_gemm_config.key());
  EXPECT_TRUE(op.selection().reason.empty());
  EXPECT_EQ(layer.run(op), layer.reference());
  EXPECT_TRUE(rt.fallbacks().empty());
  EXPECT_TRUE(warnings.messages.empty());
}

TEST_F(DispatchTest, TunedShapeFromDatabaseGetsItsConfiguration) {
  const std::string db = dir.file("tuning.db");
  write_database(db, tuned_lines());
  std::vector<Runtime> runtimes;
  runtimes.push_back(Runtime::from_database(db, warnings.options()));
  runtimes.push_back(Runtime::from_file(db, warnings.options()));  // told apart by the SQLite header
  for (const Runtime& rt : runtimes) {
    EXPECT_EQ(rt.tuned_workloads(), 1u);
    const GemmCase layer(tuned_gemm);
    const PreparedGemm op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(op.selection().config_key, tuned_gemm_config.key());
    EXPECT_EQ(layer.run(op), layer.reference());
  }
}

TEST_F(DispatchTest, FromFileDetectsALog) {
  const std::string log = dir.file("best.jsonl");
  write_log(log, tuned_lines());
  const Runtime rt = Runtime::from_file(log, warnings.options());
  EXPECT_EQ(rt.select_gemm(GemmCase(tuned_gemm).problem, 1).source, ConfigSource::tuned);
}

TEST_F(DispatchTest, FastestLineOfAWorkloadWins) {
  const Config slower = default_config(tuned_gemm, cpu_features());
  auto lines = tuned_lines();
  lines.push_back(measurement(tuned_gemm.key(), current_target_key(), slower.key(), 5000.0));
  const std::string log = dir.file("all.jsonl");
  write_log(log, lines);
  const Runtime rt = Runtime::from_log(log, warnings.options());
  EXPECT_EQ(rt.select_gemm(GemmCase(tuned_gemm).problem, 1).config_key, tuned_gemm_config.key());
}

TEST_F(DispatchTest, UntunedShapeGetsNearestTunedShapeConfiguration) {
  // Two tuned shapes; the query is a factor 2 from the first in M only (distance 1) and much
  // farther from the second.
  const Workload far = gemm_workload(1024, 512, 1024);
  const Config far_config = non_default_config(far);
  auto lines = tuned_lines();
  lines.push_back(measurement(far.key(), current_target_key(), far_config.key(), 9000.0));
  const Runtime rt = Runtime::from_entries(
      {{lines[0].workload_key, lines[0].target_key, lines[0].config_key, 1000.0},
       {lines[1].workload_key, lines[1].target_key, lines[1].config_key, 9000.0}},
      warnings.options());

  const Workload query = gemm_workload(48, 64, 256);
  const GemmCase layer(query);
  const PreparedGemm op = layer.prepare(rt, 1);
  const Selection& sel = op.selection();
  EXPECT_EQ(sel.source, ConfigSource::nearest);
  EXPECT_EQ(sel.tuned_workload_key, tuned_gemm.key());
  EXPECT_DOUBLE_EQ(sel.distance, 1.0);
  const GemmConfig neighbour = to_gemm_config(tuned_gemm_config);
  EXPECT_EQ(op.config().isa, neighbour.isa);
  EXPECT_EQ(op.config().mr, neighbour.mr);
  EXPECT_EQ(op.config().nr, neighbour.nr);
  EXPECT_NE(sel.reason.find("nearest tuned shape " + tuned_gemm.key()), std::string::npos) << sel.reason;
  EXPECT_EQ(layer.run(op), layer.reference());

  const auto report = rt.fallbacks();
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].workload_key, query.key());
  EXPECT_EQ(report[0].config_key, sel.config_key);
  EXPECT_EQ(report[0].reason, sel.reason);
  // Preparing the same layer again does not duplicate the report line.
  (void)layer.prepare(rt, 1);
  EXPECT_EQ(rt.fallback_count(), 1u);
}

TEST_F(DispatchTest, AdaptedBlockingFitsTheNewShape) {
  // A tuned configuration with K blocking, used for a shape whose K is smaller than the block.
  const Workload big = gemm_workload(64, 64, 2048);
  const KnobSpace space = space_for(big, cpu_features());
  const Config fallback = default_config(big, cpu_features());
  std::optional<Config> blocked;
  for (const Config& c : space.neighbours(fallback)) {
    if (!to_library_config(c) && c.get_int("kc") >= 256 && gemm_check_config(big.gemm_problem(), to_gemm_config(c)).empty()) {
      blocked = c;
      break;
    }
  }
  if (!blocked) GTEST_SKIP() << "no K-blocked neighbour of the default for " << big.key();
  const Runtime rt = Runtime::from_entries({{big.key(), current_target_key(), blocked->key(), 1.0}}, warnings.options());
  const GemmCase layer(gemm_workload(64, 64, 128));
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::nearest);
  EXPECT_EQ(op.config().kc, 0) << "a block >= K is the whole K";
  EXPECT_EQ(layer.run(op), layer.reference());
}

TEST_F(DispatchTest, NoTunedShapeOfTheFamilyGivesTheHeuristicDefault) {
  const Runtime rt = Runtime::from_entries(
      {{tuned_gemm.key(), current_target_key(), tuned_gemm_config.key(), 1.0}}, warnings.options());
  // Same shape, other quantization kind (u8 output): a different family.
  Workload other = tuned_gemm;
  other.quant.out_type = DType::u8;
  const GemmCase layer(other);
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
  EXPECT_EQ(op.selection().config_key, from_gemm_config(gemm_default_config(layer.problem)).key());
  EXPECT_NE(op.selection().reason.find("no runnable tuned shape"), std::string::npos) << op.selection().reason;
  EXPECT_EQ(layer.run(op), layer.reference());
}

TEST_F(DispatchTest, HeuristicDefaultIsVectorizedWhereAVectorPathExists) {
  const Runtime rt(warnings.options());
  const GemmCase layer(gemm_workload(33, 17, 70));
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
  if (cpu_features().usable(Isa::avx2) || cpu_features().usable(Isa::neon)) {
    EXPECT_NE(op.config().isa, Isa::scalar);
  }
  EXPECT_EQ(layer.run(op), layer.reference());
}

TEST_F(DispatchTest, EntriesOfOtherTargetsAreIgnoredUnlessAsked) {
  Target other = current_target();
  other.cpu = "Some Other CPU";
  const std::vector<TunedConfig> entries = {{tuned_gemm.key(), other.key(), tuned_gemm_config.key(), 1.0}};
  const Runtime here = Runtime::from_entries(entries, warnings.options());
  EXPECT_EQ(here.tuned_workloads(), 0u);
  EXPECT_EQ(here.other_target_workloads(), 1u);
  EXPECT_EQ(here.select_gemm(GemmCase(tuned_gemm).problem, 1).source, ConfigSource::heuristic);

  const Runtime there = Runtime::from_entries(entries, warnings.options(other.key()));
  EXPECT_EQ(there.tuned_workloads(), 1u);
  EXPECT_EQ(there.select_gemm(GemmCase(tuned_gemm).problem, 1).config_key, tuned_gemm_config.key());
}

// The count says how many tuned workloads --target would bring in: several configurations of one
// workload (the best of each kind, or every measurement from `qtune export --all`) count once.
TEST_F(DispatchTest, OtherTargetsCountTheirWorkloadsNotTheirEntries) {
  Target other = current_target();
  other.cpu = "Some Other CPU";
  const Workload second = gemm_workload(64, 32, 128);
  const std::vector<TunedConfig> entries = {
      {tuned_gemm.key(), other.key(), tuned_gemm_config.key(), 1.0},
      {tuned_gemm.key(), other.key(), default_config(tuned_gemm, cpu_features()).key(), 2.0},
      {second.key(), other.key(), default_config(second, cpu_features()).key(), 1.0},
  };
  EXPECT_EQ(Runtime::from_entries(entries, warnings.options()).other_target_workloads(), 2u);
}

// A process pinned to fewer cores (or with QTUNE_ISAS) has another target key than the one that
// tuned; it uses that tuning as its nearest compatible target and says so once. A target named
// in the options is used exactly.
TEST_F(DispatchTest, NearestCompatibleTargetIsUsedWhenTheExactOneHasNothing) {
  Target all_cores = current_target();
  all_cores.cores += 1;
  const std::vector<TunedConfig> entries = {{tuned_gemm.key(), all_cores.key(), tuned_gemm_config.key(), 1.0}};
  const Runtime rt = Runtime::from_entries(entries, warnings.options());
  EXPECT_EQ(rt.target_key(), all_cores.key());
  EXPECT_EQ(rt.target_differences(),
            "cores " + std::to_string(all_cores.cores) + " -> " + std::to_string(current_target().cores));
  EXPECT_EQ(rt.tuned_workloads(), 1u);
  EXPECT_EQ(rt.select_gemm(GemmCase(tuned_gemm).problem, 1).config_key, tuned_gemm_config.key());
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("nearest compatible target"), std::string::npos) << warnings.messages[0];

  // The exact target wins when it has entries; a named target is never substituted.
  const Runtime exact = Runtime::from_entries(
      {entries[0], {tuned_gemm.key(), current_target_key(), tuned_gemm_config.key(), 2.0}}, warnings.options());
  EXPECT_EQ(exact.target_key(), current_target_key());
  EXPECT_EQ(exact.target_differences(), "");
  const Runtime named = Runtime::from_entries(entries, warnings.options(current_target_key()));
  EXPECT_EQ(named.tuned_workloads(), 0u);
}

TEST_F(DispatchTest, ThreadBudgetIsPartOfTheWorkload) {
  const Runtime rt = Runtime::from_entries(
      {{tuned_gemm.key(), current_target_key(), tuned_gemm_config.key(), 1.0}}, warnings.options());
  const Selection sel = rt.select_gemm(GemmCase(tuned_gemm).problem, 2);
  EXPECT_EQ(sel.source, ConfigSource::nearest);  // same shape, other budget: distance 0
  EXPECT_DOUBLE_EQ(sel.distance, 0.0);
  EXPECT_EQ(sel.tuned_workload_key, tuned_gemm.key());
  // Tuned within a budget of one thread, it used all it had: the two-thread layer runs on two.
  ASSERT_EQ(tuned_gemm.threads, 1);
  EXPECT_EQ(full_space(OpKind::gemm).parse(sel.config_key).get_int("threads"), 2) << sel.config_key;
}

TEST_F(DispatchTest, TunedThreadCountAboveTheBudgetIsRejectedWithAWarning) {
  Workload budget_two = tuned_gemm;
  budget_two.threads = 2;
  KnobSpace space = space_for(budget_two, cpu_features());
  std::optional<Config> two_threads;
  for (const Config& c : space.neighbours(default_config(budget_two, cpu_features()))) {
    if (c.get_int("threads") == 2) two_threads = c;
  }
  ASSERT_TRUE(two_threads.has_value());
  // A hand-made entry: a 2-thread configuration under the 1-thread workload's key.
  const Runtime rt = Runtime::from_entries({{tuned_gemm.key(), current_target_key(), two_threads->key(), 1.0}},
                                           warnings.options());
  const GemmCase layer(tuned_gemm);
  const PreparedGemm op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
  EXPECT_EQ(op.config().threads, 1);
  EXPECT_NE(op.selection().reason.find("exceeds the thread budget"), std::string::npos) << op.selection().reason;
  EXPECT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(layer.run(op), layer.reference());
}

TEST_F(DispatchTest, Conv2dTunedNearestAndDefault) {
  const Workload tuned_conv = conv_workload(14, 32, 48, 3, 1, 1);
  const Config conv_config = non_default_config(tuned_conv);
  const Runtime rt = Runtime::from_entries({{tuned_conv.key(), current_target_key(), conv_config.key(), 1.0}},
                                           warnings.options());
  {
    const ConvCase layer(tuned_conv);
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(op.selection().config_key, conv_config.key());
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  {
    const ConvCase layer(conv_workload(7, 32, 64, 3, 2, 1));  // untuned dense 3x3: nearest
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::nearest);
    EXPECT_EQ(op.selection().tuned_workload_key, tuned_conv.key());
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  {
    const ConvCase layer(conv_workload(14, 32, 32, 3, 1, 1, 32));  // depthwise: another family
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  EXPECT_EQ(rt.fallback_count(), 2u);
}

TEST_F(DispatchTest, Conv2dPointwiseConfigAdaptsToA3x3Neighbour) {
  const Workload pointwise = conv_workload(14, 32, 64, 1, 1, 0);
  const Config config = default_config(pointwise, cpu_features());
  if (config.get("algo") != "gemm_1x1") GTEST_SKIP() << "default of the pointwise layer is " << config.key();
  const Runtime rt = Runtime::from_entries({{pointwise.key(), current_target_key(), config.key(), 1.0}},
                                           warnings.options());
  const ConvCase layer(conv_workload(14, 32, 64, 3, 1, 1));
  const PreparedConv2d op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().source, ConfigSource::nearest);
  EXPECT_NE(op.config().algo, ConvAlgo::gemm_1x1);
  EXPECT_EQ(layer.run(op), layer.reference());
}

TEST_F(DispatchTest, BadProblemsAndArgumentsThrow) {
  const Runtime rt(warnings.options());
  GemmCase layer(tuned_gemm);
  EXPECT_THROW(layer.prepare(rt, 0), std::invalid_argument);
  EXPECT_THROW(rt.prepare_gemm(layer.problem, nullptr, 64, layer.bias.data(), 1), std::invalid_argument);
  EXPECT_THROW(rt.prepare_gemm(layer.problem, layer.b.data(), 64, nullptr, 1), std::invalid_argument);
  EXPECT_THROW(rt.prepare_gemm(layer.problem, layer.b.data(), 10, layer.bias.data(), 1), std::invalid_argument);
  const PreparedGemm op = layer.prepare(rt, 1);
  std::vector<std::uint8_t> c(96 * 64);
  EXPECT_THROW(op.run(layer.a.data(), 100, c.data(), 64), std::invalid_argument);  // lda < K
  EXPECT_THROW(op.run(nullptr, 256, c.data(), 64), std::invalid_argument);
  layer.problem.m = -1;
  EXPECT_THROW(layer.prepare(rt, 1), std::invalid_argument);
}

TEST_F(DispatchTest, BadFilesAreErrors) {
  EXPECT_THROW(Runtime::from_file(dir.file("missing.jsonl")), std::runtime_error);
  const std::string garbage = dir.file("garbage.jsonl");
  std::ofstream(garbage) << "this is not json\n";
  EXPECT_THROW(Runtime::from_file(garbage), std::runtime_error);
  const std::string bad_key = dir.file("bad_key.jsonl");
  write_log(bad_key, {measurement("gemm:m=1", current_target_key(), tuned_gemm_config.key(), 1.0)});
  EXPECT_THROW(Runtime::from_log(bad_key), std::runtime_error);
  const std::string fake_db = dir.file("fake.db");
  std::ofstream(fake_db) << std::string("SQLite format 3\0garbage", 23);
  EXPECT_THROW(Runtime::from_file(fake_db), std::runtime_error);
  EXPECT_THROW(Runtime::from_entries({{tuned_gemm.key(), current_target_key(), "isa=avx2;tile=nonsense", 1.0}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace qtune::runtime
