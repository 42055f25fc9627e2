// A block tuned as one unit (qtune/search_space/block_workload.h) is kept in the database and the
// log beside its layers, reads back in one spelling, and reaches the runtime's table of blocks
// without disturbing the layers' entries; a database without blocks loads as before.
#include <gtest/gtest.h>

#include "qtune/records/tuning_db.h"
#include "qtune/records/tuning_log.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/block_workload.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace tuned_block_test {

using namespace testing;

BlockWorkload block_56() {
  BlockWorkload b;
  b.members = {conv_workload(56, 24, 144, 1, 1, 0), conv_workload(56, 144, 144, 3, 1, 1, 144),
               conv_workload(56, 144, 24, 1, 1, 0)};
  for (Workload& w : b.members) w.quant.out_type = DType::u8;  // the activations' type from layer to layer
  return b;
}

std::string members_config(const BlockWorkload& b) {
  std::string key;
  for (const Workload& w : b.members) key += "|" + default_config(w, cpu_features()).key();
  return key;
}

TEST(TunedBlock, ValidatorsDescribeABlockAndCheckItsConfiguration) {
  const auto validators = search_space_validators();
  const BlockWorkload b = block_56();
  const records::WorkloadSummary summary = validators.workload(b.key());
  EXPECT_EQ(summary.op, "inverted_residual");
  EXPECT_EQ(summary.description, b.describe());
  ASSERT_TRUE(summary.gops);
  EXPECT_DOUBLE_EQ(*summary.gops, b.gops());
  const std::string fused = "fused=1;rows=4" + members_config(b);
  EXPECT_EQ(validators.config(b.key(), fused), fused);
  EXPECT_EQ(validators.run_config(b.key(), fused), fused);
  EXPECT_THROW(validators.config(b.key(), "fused=1;rows=4|algo=nonsense|x|y"), std::invalid_argument);
  EXPECT_THROW(validators.config(b.key(), "fused=1;rows=4" + members_config(b) + "|extra"), std::invalid_argument);
  std::string reordered = b.key();
  reordered.replace(reordered.find("h=56"), 4, "h=056");
  EXPECT_THROW(validators.workload(reordered), std::invalid_argument);
}

TEST(TunedBlock, DatabaseAndLogKeepBlocksBesideLayersAndTheRuntimeTakesTheFastest) {
  TempDir dir;
  const BlockWorkload b = block_56();
  const std::string target = current_target_key();
  const std::string slow = "fused=0" + members_config(b), fast = "fused=1;rows=2" + members_config(b);
  const Workload layer = conv_workload(28, 32, 64, 1, 1, 0);
  const std::string layer_config = non_default_config(layer).key();
  const std::vector<records::MeasurementRecord> rows = {measurement(b.key(), target, slow, 2000.0),
                                                        measurement(b.key(), target, fast, 1500.0),
                                                        measurement(layer.key(), target, layer_config, 100.0)};
  {
    auto db = records::TuningDb::open(dir.file("t.db"), records::OpenMode::create, search_space_validators());
    for (const auto& r : rows) db.add_measurement(r);
    const auto best = db.best(b.key(), target);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->measurement.config_key, fast);
  }
  write_log(dir.file("t.jsonl"), rows);
  for (const std::string file : {"t.db", "t.jsonl"}) {
    SCOPED_TRACE(file);
    const Runtime rt = Runtime::from_file(dir.file(file));
    EXPECT_EQ(rt.tuned_blocks(), 1u);
    EXPECT_EQ(rt.tuned_workloads(), 1u);
    EXPECT_EQ(rt.tuned_block(b.key()), fast);
    EXPECT_FALSE(rt.tuned_block(layer.key()));
    EXPECT_EQ(rt.select_conv2d(layer.conv2d_problem(), 1).config_key, layer_config);
  }
  // Another target's block is not this one's.
  const Runtime other = Runtime::from_entries({{b.key(), "arch=x86_64;cpu=other", fast, 1.0}}, {"arch=x86_64;cpu=mine", {}});
  EXPECT_EQ(other.tuned_blocks(), 0u);
}

TEST(TunedBlock, AFusedBlockRunsOnlyWhereItBeatsItsLayersByTheMargin) {
  const BlockWorkload b = block_56();
  const std::string target = current_target_key();
  const std::string unfused = "fused=0" + members_config(b), fused = "fused=1;rows=4" + members_config(b);
  const auto choice = [&](double fused_ns, double unfused_ns) {
    return Runtime::from_entries({{b.key(), target, fused, fused_ns}, {b.key(), target, unfused, unfused_ns}})
        .tuned_block(b.key());
  };
  EXPECT_EQ(choice(1000, 1000 * kFusedBlockMargin + 1), fused);
  EXPECT_EQ(choice(1000, 1000 * kFusedBlockMargin - 1), unfused);  // faster, within the margin
  EXPECT_EQ(choice(1000, 900), unfused);
  // Only one kind recorded: that one.
  EXPECT_EQ(Runtime::from_entries({{b.key(), target, fused, 1000}}).tuned_block(b.key()), fused);
  EXPECT_EQ(Runtime::from_entries({{b.key(), target, unfused, 1000}}).tuned_block(b.key()), unfused);
  // A database: the fastest of each kind weighed, whatever else was measured.
  TempDir dir;
  write_database(dir.file("m.db"), {measurement(b.key(), target, unfused, 1000), measurement(b.key(), target, fused, 990),
                                    measurement(b.key(), target, "fused=1;rows=8" + members_config(b), 1200)});
  EXPECT_EQ(Runtime::from_file(dir.file("m.db")).tuned_block(b.key()), unfused);
}

TEST(TunedBlock, ABadBlockEntryIsNamed) {
  const BlockWorkload b = block_56();
  try {
    Runtime::from_entries({{b.key(), current_target_key(), "fused=1;rows=2|x", 1.0}});
    FAIL() << "accepted a configuration of one member for three";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tuned entry 1 (block 'inverted_residual:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 member configurations, got 1"), std::string::npos) << e.what();
  }
}

}  // namespace tuned_block_test
}  // namespace qtune::runtime
