// Tuning data written before a knob existed (tests/fixtures/keys_before_threads_knob: every
// configuration key lacks `threads`) loads into the runtime, from the log and from the database,
// and its layers run their tuned configurations with the knob's default, bit-exact.
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
using qtune::testing::kOmittedKnob;
using qtune::testing::older_keys_fixture;

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
    EXPECT_EQ(gemm_op.selection().config_key, best.at(gemm_workload(8, 8, 16).key()) + kOmittedKnob);
    EXPECT_EQ(gemm.run(gemm_op), gemm.reference());

    for (const Workload& w : {conv_workload(6, 4, 4, 3, 1, 1), conv_workload(6, 4, 4, 3, 1, 0, 4)}) {
      const ConvCase conv(w);
      const PreparedConv2d conv_op = conv.prepare(rt, 1);
      EXPECT_EQ(conv_op.selection().source, ConfigSource::tuned) << w.key();
      EXPECT_EQ(conv_op.selection().config_key, best.at(w.key()) + kOmittedKnob);
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
  auto db = records::TuningDb::open(copy_of_older_keys_database(dir.path()), records::OpenMode::existing);
  db.set_validators(validators);
  for (const auto& m : db.measurements()) {
    EXPECT_EQ(full_space(Workload::parse_key(m.workload_key).op).parse(m.config_key).key(), m.config_key);
    EXPECT_NE(m.config_key.find(kOmittedKnob), std::string::npos) << m.config_key;
  }

  const auto older = older_best();
  const std::string gemm_key = gemm_workload(8, 8, 16).key();
  const std::string today = older.at(gemm_key) + kOmittedKnob;
  // A newer measurement of the older best, much slower: with two measurements of the configuration
  // its time is their lower median, so it stays the best only if both count as one configuration.
  db.add_measurement(measurement(gemm_key, target_key, today, 1e9));
  EXPECT_EQ(db.best(gemm_key, target_key)->measurement.config_key, today);

  auto fresh = records::TuningDb::open(dir.file("fresh.db"), records::OpenMode::create);
  const auto report = records::import_logs(fresh, {older_keys_fixture("older.jsonl").string()}, validators, false);
  EXPECT_EQ(report.counts.added, 13);
  fresh.set_validators(validators);
  EXPECT_EQ(fresh.best(gemm_key, target_key)->measurement.config_key, today);
}

TEST_F(OlderKeysTest, OnlyTheOlderSpellingOfAKeyIsAccepted) {
  const auto validators = search_space_validators();
  const std::string gemm_key = gemm_workload(8, 8, 16).key();
  EXPECT_EQ(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1"),
            "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1");
  // Knobs out of order: no qtune wrote that; unknown knobs and values stay errors.
  EXPECT_THROW(validators.config(gemm_key, "tile=8x8;isa=scalar;kc=0;mc=0;nc=0;pack_a=0;fuse=1"), std::invalid_argument);
  EXPECT_THROW(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;colour=red"),
               std::invalid_argument);
  EXPECT_THROW(validators.config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=7"), std::invalid_argument);
}

}  // namespace
}  // namespace qtune::runtime
