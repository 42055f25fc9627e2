// Library configurations in tuning data: a layer (conv2d or GEMM) tuned to a library (algo=onednn) runs on it where
// this build and CPU have it, bit-exact; where they do not (a build without oneDNN, a CPU without
// its exact path, or here: the library hidden through the registry's seam, which makes this
// process behave as such a build), the layer falls back to qtune's kernels with one warning.
#include <gtest/gtest.h>

#include "qtune/libraries/library_registry.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

// Hides a library for the lifetime of the guard.
class HiddenLibrary {
 public:
  explicit HiddenLibrary(std::string name) : name_(std::move(name)) { libraries::set_library_hidden(name_, true); }
  ~HiddenLibrary() { libraries::set_library_hidden(name_, false); }
  HiddenLibrary(const HiddenLibrary&) = delete;
  HiddenLibrary& operator=(const HiddenLibrary&) = delete;

 private:
  std::string name_;
};

class LibraryFallbackTest : public ::testing::Test {
 protected:
  TempDir dir;
  WarningCollector warnings;
  const Workload tuned_conv = conv_workload(14, 32, 48, 3, 1, 1);
  const Workload tuned_gemm = gemm_workload(49, 96, 320);
  const std::string library_key = from_library_config({"onednn", 1}).key();

  Runtime runtime_from_database() {
    const std::string db = dir.file("tuned.db");
    write_database(db, {measurement(tuned_conv.key(), current_target_key(), library_key, 1000.0),
                        measurement(tuned_gemm.key(), current_target_key(), library_key, 1000.0)});
    return Runtime::from_database(db, warnings.options());
  }
};

TEST_F(LibraryFallbackTest, TunedLibraryLayerRunsOnTheLibraryBitExact) {
  if (const std::string why = libraries::library_unavailable("onednn"); !why.empty()) GTEST_SKIP() << why;
  const Runtime rt = runtime_from_database();
  {
    const ConvCase layer(tuned_conv);
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(op.selection().config_key, library_key);
    EXPECT_EQ(op.library(), "onednn");
    EXPECT_THROW(op.config(), std::logic_error);
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  {
    const ConvCase layer(conv_workload(7, 32, 64, 3, 2, 1));  // untuned, same family: the neighbour's library
    const PreparedConv2d op = layer.prepare(rt, 2);
    EXPECT_EQ(op.selection().source, ConfigSource::nearest);
    EXPECT_EQ(op.library(), "onednn");
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  {
    const GemmCase layer(tuned_gemm);
    const PreparedGemm op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(op.selection().config_key, library_key);
    EXPECT_EQ(op.library(), "onednn");
    EXPECT_THROW(op.config(), std::logic_error);
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  {
    const GemmCase layer(gemm_workload(7, 50, 1000));  // untuned, same family: the neighbour's library
    const PreparedGemm op = layer.prepare(rt, 2);
    EXPECT_EQ(op.selection().source, ConfigSource::nearest);
    EXPECT_EQ(op.library(), "onednn");
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  EXPECT_TRUE(warnings.messages.empty());
}

TEST_F(LibraryFallbackTest, RuntimeWithoutTheLibraryFallsBackWithOneWarning) {
  const HiddenLibrary hidden("onednn");
  const Runtime rt = runtime_from_database();
  EXPECT_EQ(rt.tuned_workloads(), 2u);  // the entries load: they name a library qtune knows
  for (const Workload& w : {tuned_conv, conv_workload(7, 32, 64, 3, 2, 1)}) {
    const ConvCase layer(w);
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
    EXPECT_EQ(op.library(), "");
    if (w.key() == tuned_conv.key()) {
      EXPECT_NE(op.selection().reason.find("onednn"), std::string::npos) << op.selection().reason;
    }
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  for (const Workload& w : {tuned_gemm, gemm_workload(7, 50, 1000)}) {
    const GemmCase layer(w);
    const PreparedGemm op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::heuristic);
    EXPECT_EQ(op.library(), "");
    EXPECT_NO_THROW(op.config());
    EXPECT_EQ(layer.run(op), layer.reference());
  }
  // One warning per library and cause, whichever operator met it first.
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("library onednn"), std::string::npos) << warnings.messages[0];
  EXPECT_EQ(rt.fallback_count(), 4u);
}

// A layer whose tuning measured qtune's kernels as well as the library that won: where the library
// may not run, it runs the best of qtune's configurations measured for it (tuned, with the reason),
// not a neighbour's or the heuristic default, from a database and from a log alike.
TEST_F(LibraryFallbackTest, RuntimeWithoutTheLibraryRunsTheLayersBestOwnConfiguration) {
  const Config runner_up = non_default_config(tuned_conv);
  const Config slower = default_config(tuned_conv, cpu_features());
  ASSERT_NE(runner_up.key(), slower.key());
  const std::vector<records::MeasurementRecord> records = {
      measurement(tuned_conv.key(), current_target_key(), slower.key(), 2000.0),
      measurement(tuned_conv.key(), current_target_key(), library_key, 1000.0),
      measurement(tuned_conv.key(), current_target_key(), runner_up.key(), 1500.0),
      measurement(tuned_gemm.key(), current_target_key(), library_key, 1000.0)};
  const std::string db = dir.file("kinds.db"), log = dir.file("kinds.jsonl");
  write_database(db, records);
  write_log(log, records);
  const HiddenLibrary hidden("onednn");
  for (const Runtime& rt : {Runtime::from_database(db, warnings.options()), Runtime::from_log(log, warnings.options())}) {
    EXPECT_EQ(rt.tuned_workloads(), 2u);
    const ConvCase layer(tuned_conv);
    const PreparedConv2d op = layer.prepare(rt, 1);
    EXPECT_EQ(op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(op.selection().config_key, runner_up.key());
    EXPECT_EQ(op.library(), "");
    EXPECT_NE(op.selection().reason.find("onednn"), std::string::npos) << op.selection().reason;
    EXPECT_NE(op.selection().reason.find("best qtune configuration"), std::string::npos) << op.selection().reason;
    EXPECT_EQ(layer.run(op), layer.reference());
    // A layer that measured nothing but the library still falls back.
    const GemmCase gemm(tuned_gemm);
    EXPECT_EQ(gemm.prepare(rt, 1).selection().source, ConfigSource::heuristic);
    EXPECT_EQ(rt.fallback_count(), 1u);
  }
}

TEST_F(LibraryFallbackTest, BestOfAnotherKindNeverReplacesARunnableBest) {
  if (const std::string why = libraries::library_unavailable("onednn"); !why.empty()) GTEST_SKIP() << why;
  const std::string db = dir.file("kinds.db");
  write_database(db, {measurement(tuned_conv.key(), current_target_key(), non_default_config(tuned_conv).key(), 1500.0),
                      measurement(tuned_conv.key(), current_target_key(), library_key, 1000.0)});
  const Runtime rt = Runtime::from_database(db, warnings.options());
  const ConvCase layer(tuned_conv);
  const PreparedConv2d op = layer.prepare(rt, 1);
  EXPECT_EQ(op.selection().config_key, library_key);
  EXPECT_EQ(op.selection().reason, "");
}

TEST_F(LibraryFallbackTest, KernelsOnlyRunsTheLayersBestOwnConfigurationWhereTheLibraryWon) {
  // A whole model at several threads asks for qtune's kernels only: the library's best is passed
  // over for the best own configuration measured, the nearest never takes a library, and a layer
  // that measured nothing else gets the default. The library stays usable for other callers.
  const Config runner_up = non_default_config(tuned_conv);
  const std::string db = dir.file("kinds.db");
  write_database(db, {measurement(tuned_conv.key(), current_target_key(), library_key, 1000.0),
                      measurement(tuned_conv.key(), current_target_key(), runner_up.key(), 1500.0),
                      measurement(tuned_gemm.key(), current_target_key(), library_key, 1000.0)});
  const Runtime rt = Runtime::from_database(db, warnings.options());
  const ConvCase layer(tuned_conv);
  const PreparedConv2d own = rt.prepare_conv2d(layer.problem, layer.weights.data(), layer.bias.data(), 1, LibraryUse::kernels_only);
  EXPECT_EQ(own.selection().source, ConfigSource::tuned);
  EXPECT_EQ(own.selection().config_key, runner_up.key());
  EXPECT_EQ(own.library(), "");
  EXPECT_NE(own.selection().reason.find("qtune's kernels only"), std::string::npos) << own.selection().reason;
  EXPECT_EQ(layer.run(own), layer.reference());
  const ConvCase untuned(conv_workload(7, 32, 64, 3, 2, 1));
  const auto neighbour = rt.select_conv2d(untuned.problem, 2, LibraryUse::kernels_only);
  EXPECT_EQ(neighbour.config_key.find("onednn"), std::string::npos) << neighbour.config_key;
  const GemmCase gemm(tuned_gemm);
  const auto gemm_selection = rt.select_gemm(gemm.problem, 1, LibraryUse::kernels_only);
  EXPECT_NE(gemm_selection.source, ConfigSource::tuned);
  EXPECT_EQ(gemm_selection.config_key.find("onednn"), std::string::npos) << gemm_selection.config_key;
  if (libraries::library_unavailable("onednn").empty()) {
    EXPECT_EQ(rt.select_conv2d(layer.problem, 1).config_key, library_key);  // allowed by default
  }
}

}  // namespace
}  // namespace qtune::runtime
