// Tuning data written before a knob existed (tests/fixtures/keys_before_threads_knob: every
// configuration key lacks `threads`; keys_before_gemm_algo_knob: GEMM keys lack `algo`) loads into
// the runtime, from the log and from the database, and its layers run their tuned configurations
// with the knobs' defaults, bit-exact.
#include <gtest/gtest.h>

#include <map>

#include "fixtures/older_keys.h"
#include "qtune/records/best_selection.h"
#include "qtune/records/transfer.h"
#include "qtune/runtime/key_validators.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;
using qtune::testing::copy_of_older_keys_database;
using qtune::testing::kKeysBeforeGemmAlgoKnob;
using qtune::testing::older_keys_fixture;
using qtune::testing::todays_spelling;

class OlderKeysTest : public ::testing::Test {
 protected:
  TempDir dir;
  WarningCollector warnings;
  // The log as written, no key checked or respelled.
  const records::LogReadResult as_written = records::read_log_file(older_keys_fixture("older.jsonl").string(), {});
  const std::string target_key = as_written.records.at(0).target_key;

  // Each workload's best configuration as the older qtune spelled it.
  std::map<std::string, std::string> older_best() const {
    std::map<std::string, std::string> best;
    for (const auto& r : records::select_best(as_written.records)) best[r.workload_key] = r.config_key;
    return best;
  }

  // Every tuned layer of the fixture gets its tuned configuration, the knob's default spelled out,
  // and computes what the reference computes.
  void expect_tuned_layers_run(const Runtime& rt) {
    const auto best = older_best();
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(rt.tuned_workloads(), 3u);

    const GemmCase gemm(gemm_workload(8, 8, 16));
    const PreparedGemm gemm_op = gemm.prepare(rt, 1);
    EXPECT_EQ(gemm_op.selection().source, ConfigSource::tuned);
    EXPECT_EQ(gemm_op.selection().config_key, todays_spelling(OpKind::gemm, best.at(gemm_workload(8, 8, 16).key())));
    EXPECT_EQ(gemm.run(gemm_op), gemm.reference());

    for (const Workload& w : {conv_workload(6, 4, 4, 3, 1, 1), conv_workload(6, 4, 4, 3, 1, 0, 4)}) {
      const ConvCase conv(w);
      const PreparedConv2d conv_op = conv.prepare(rt, 1);
      EXPECT_EQ(conv_op.selection().source, ConfigSource::tuned) << w.key();
      EXPECT_EQ(conv_op.selection().config_key, todays_spelling(OpKind::conv2d, best.at(w.key())));
      EXPECT_EQ(conv.run(conv_op), conv.reference()) << w.key();
    }
    EXPECT_TRUE(rt.fallbacks().empty());
  }
};

TEST_F(OlderKeysTest, TheFixtureKeysReallyLackTheKnob) {
  ASSERT_TRUE(as_written.problems.empty());
  ASSERT_EQ(as_written.records.size(), 13u);
  for (const auto& r : as_written.records) EXPECT_EQ(r.config_key.find("threads="), std::string::npos) << r.config_key;
}

TEST_F(OlderKeysTest, LogLoadsAndItsLayersRun) {
  expect_tuned_layers_run(Runtime::from_log(older_keys_fixture("older.jsonl").string(), warnings.options(target_key)));
}

TEST_F(OlderKeysTest, DatabaseLoadsAndItsLayersRun) {
  expect_tuned_layers_run(Runtime::from_database(copy_of_older_keys_database(dir.path()), warnings.options(target_key)));
}

// Readers give the keys in today's spelling, so an older row and a newer measurement of the same
// configuration are one configuration: imported, read back and selected as such.
TEST_F(OlderKeysTest, OlderKeysReadInTodaysSpelling) {
  const auto validators = search_space_validators();
  auto db = records::TuningDb::open(copy_of_older_keys_database(dir.path()), records::OpenMode::existing, validators);
  for (const auto& m : db.measurements()) {
    EXPECT_EQ(full_space(Workload::parse_key(m.workload_key).op).parse(m.config_key).key(), m.config_key);
    EXPECT_NE(m.config_key.find(";threads=1"), std::string::npos) << m.config_key;
  }

  const auto older = older_best();
  const std::string gemm_key = gemm_workload(8, 8, 16).key();
  const std::string today = todays_spelling(OpKind::gemm, older.at(gemm_key));
  // A newer measurement of the older best, much slower: with two measurements of the configuration
  // its time is their lower median, so it stays the best only if both count as one configuration.
  db.add_measurement(measurement(gemm_key, target_key, today, 1e9));
  EXPECT_EQ(db.best(gemm_key, target_key)->measurement.config_key, today);

  auto fresh = records::TuningDb::open(dir.file("fresh.db"), records::OpenMode::create, validators);
  const auto report = records::import_logs(fresh, {older_keys_fixture("older.jsonl").string()}, false);
  EXPECT_EQ(report.counts.added, 13);
  EXPECT_EQ(fresh.best(gemm_key, target_key)->measurement.config_key, today);
}

TEST_F(OlderKeysTest, OnlyTheOlderSpellingOfAKeyIsAccepted) {
  const auto validators = search_space_validators();
  const std::string gemm_key = gemm_workload(8, 8, 16).key();
  EXPECT_EQ(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1"),
            "algo=qtune;isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1");
  EXPECT_EQ(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1"),
            "algo=qtune;isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1");
  // Knobs out of order: no qtune wrote that; unknown knobs and values stay errors.
  EXPECT_THROW(validators.config(gemm_key, "tile=8x8;isa=scalar;kc=0;mc=0;nc=0;pack_a=0;fuse=1"), std::invalid_argument);
  EXPECT_THROW(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;colour=red"),
               std::invalid_argument);
  EXPECT_THROW(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=7"), std::invalid_argument);
}

// GEMM keys of a qtune before the gemm space's algo knob (keys_before_gemm_algo_knob, unchanged
// as that qtune measured them): they mean qtune's own kernels, load from the log and the
// database, and their layers run the tuned configurations, never a library.
class GemmKeysBeforeAlgoKnobTest : public ::testing::Test {
 protected:
  TempDir dir;
  WarningCollector warnings;
  const records::LogReadResult as_written =
      records::read_log_file(older_keys_fixture("older.jsonl", kKeysBeforeGemmAlgoKnob).string(), {});
  const std::string target_key = as_written.records.at(0).target_key;

  void expect_tuned_layers_run(const Runtime& rt) {
    std::map<std::string, std::string> best;
    for (const auto& r : records::select_best(as_written.records)) best[r.workload_key] = r.config_key;
    ASSERT_EQ(best.size(), 2u);
    EXPECT_EQ(rt.tuned_workloads(), 2u);
    for (const auto& [workload_key, older_key] : best) {
      const GemmCase layer(Workload::parse_key(workload_key));
      const PreparedGemm op = layer.prepare(rt, 1);
      EXPECT_EQ(op.selection().source, ConfigSource::tuned) << workload_key;
      EXPECT_EQ(op.selection().config_key, "algo=qtune;" + older_key);
      EXPECT_EQ(op.library(), "");
      EXPECT_EQ(layer.run(op), layer.reference()) << workload_key;
    }
    EXPECT_TRUE(rt.fallbacks().empty());
  }
};

TEST_F(GemmKeysBeforeAlgoKnobTest, TheFixtureKeysReallyLackTheKnob) {
  ASSERT_TRUE(as_written.problems.empty());
  ASSERT_EQ(as_written.records.size(), 10u);
  for (const auto& r : as_written.records) {
    EXPECT_EQ(r.config_key.rfind("isa=scalar;", 0), 0u) << r.config_key;
    EXPECT_EQ(Workload::parse_key(r.workload_key).op, OpKind::gemm);
  }
}

TEST_F(GemmKeysBeforeAlgoKnobTest, LogLoadsAndItsLayersRun) {
  expect_tuned_layers_run(Runtime::from_log(older_keys_fixture("older.jsonl", kKeysBeforeGemmAlgoKnob).string(),
                                            warnings.options(target_key)));
}

TEST_F(GemmKeysBeforeAlgoKnobTest, DatabaseLoadsAndItsLayersRun) {
  expect_tuned_layers_run(Runtime::from_database(copy_of_older_keys_database(dir.path(), kKeysBeforeGemmAlgoKnob),
                                                 warnings.options(target_key)));
}

}  // namespace
}  // namespace qtune::runtime
