// Blocks of layers as tuned units, end to end: every candidate of a block (its layers one by one,
// fused at each strip height, with the tuned and the default member configurations) measures
// correct against the layers run one by one by the scalar reference; a bad candidate is an error
// result naming why; `tune_model_blocks` records a model's blocks; the executor runs each block as
// its best record says, with the outputs of the model run layer by layer.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "executor/onnxruntime_reference.h"
#include "qtune/evaluation/block_tuning.h"
#include "qtune/executor/model_blocks.h"
#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/measure.h"
#include "qtune/records/tuning_db.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "scratch_dir.h"

namespace qtune::executor {
namespace block_tuning_test {

MeasureSettings quick_blocks() {
  MeasureSettings s;
  s.warmup_seconds = 0;
  s.min_repetition_seconds = 0.001;
  s.repetitions = 1;
  return s;
}

Workload conv_member(std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t oc, std::int64_t kernel,
                     std::int64_t stride, std::int64_t pad, std::int64_t groups, int threads) {
  Workload m;
  m.op = OpKind::conv2d;
  m.in_h = h;
  m.in_w = w;
  m.in_c = c;
  m.out_c = oc;
  m.kernel_h = m.kernel_w = kernel;
  m.stride_h = m.stride_w = stride;
  m.pad_top = m.pad_bottom = m.pad_left = m.pad_right = pad;
  m.groups = groups;
  m.threads = threads;
  m.quant.out_type = DType::u8;  // the activations' type from layer to layer
  m.quant.relu = groups == 1 && oc > c;  // the expansion's and the depthwise's ReLU6
  return m;
}

std::vector<std::string> defaults_of(const BlockWorkload& b) {
  std::vector<std::string> keys;
  for (const Workload& w : b.members) keys.push_back(default_config(w, cpu_features()).key());
  return keys;
}

// Ragged strips (odd heights), stride 2, no expansion, two threads, s8 activations, an int32 output.
std::vector<BlockWorkload> blocks() {
  std::vector<BlockWorkload> out;
  for (const int threads : {1, 2}) {
    BlockWorkload a;
    a.members = {conv_member(13, 11, 16, 96, 1, 1, 0, 1, threads), conv_member(13, 11, 96, 96, 3, 2, 1, 96, threads),
                 conv_member(7, 6, 96, 24, 1, 1, 0, 1, threads)};
    out.push_back(a);
    BlockWorkload b;
    b.members = {conv_member(17, 9, 32, 32, 3, 1, 1, 32, threads), conv_member(17, 9, 32, 16, 1, 1, 0, 1, threads)};
    out.push_back(b);
  }
  BlockWorkload c = out[0];
  for (Workload& w : c.members) w.quant.a_type = w.quant.out_type = DType::s8;
  c.members.back().quant.out_type = DType::s32;
  out.push_back(c);
  return out;
}

TEST(BlockCandidates, EveryCandidateMeasuresCorrectAgainstTheLayersOneByOne) {
  evaluation::register_block_operators();
  for (const BlockWorkload& b : blocks()) {
    SCOPED_TRACE(b.key());
    // A second member set: the projection's configuration from its space's neighbours.
    std::vector<std::string> other = defaults_of(b);
    const KnobSpace space = space_for(b.members.back(), cpu_features());
    for (const Config& c : space.neighbours(space.parse(other.back())))
      if (!to_library_config(c) && c.key() != other.back()) {
        other.back() = c.key();
        break;
      }
    const std::vector<BlockConfig> candidates = block_candidates(b, {defaults_of(b), other});
    ASSERT_GE(candidates.size(), 3u);
    EXPECT_FALSE(candidates.front().fused);
    EXPECT_EQ(std::count_if(candidates.begin(), candidates.end(), [](const BlockConfig& c) { return !c.fused; }), 1);
    int ran = 0;
    for (const BlockConfig& c : candidates) {
      const MeasureResult r = measure_keys_in_process(b.key(), c.key(), quick_blocks());
      // A member configuration a strip cannot run is rejected, never wrong.
      if (r.error == ErrorKind::invalid_config) continue;
      EXPECT_TRUE(r.ok()) << c.key() << ": " << to_string(r.error) << " " << r.error_message;
      ++ran;
    }
    EXPECT_GE(ran, 3);
  }
}

TEST(BlockCandidates, ABadCandidateIsAnErrorResultNamingWhy) {
  evaluation::register_block_operators();
  const BlockWorkload b = blocks()[0];
  std::vector<std::string> members = defaults_of(b);
  const auto error = [&](const std::string& workload, const std::string& config) {
    const MeasureResult r = measure_keys_in_process(workload, config, quick_blocks());
    EXPECT_FALSE(r.ok()) << config;
    return std::string(to_string(r.error)) + ": " + r.error_message;
  };
  EXPECT_NE(error(b.key(), "fused=1;rows=2|" + members[0] + "|" + members[1]).find("invalid_config"), std::string::npos);
  EXPECT_NE(error(b.key(), "fused=1;rows=2|" + members[0] + "|algo=none|" + members[2]).find("block member 2"),
            std::string::npos);
  const auto library = library_configs(space_for(b.members[0], cpu_features()));
  if (!library.empty()) {
    EXPECT_NE(error(b.key(), "fused=0|" + library[0].key() + "|" + members[1] + "|" + members[2])
                  .find("a library's configuration cannot run in a block"),
              std::string::npos);
  }
  std::string not_a_block = b.key();
  not_a_block.replace(not_a_block.find("g=96"), 4, "g=1");
  EXPECT_NE(error(not_a_block, "fused=0|a|b|c").find("invalid_workload"), std::string::npos);
}

// The model's blocks tuned into a database, then the executor at a forced choice per block: fused
// at the smallest correct strip height where the record says so, the layers where it says fused=0.
TEST(BlockTuning, TheExecutorRunsEachBlockAsItsBestRecordSays) {
  evaluation::register_block_operators();
  qtune::testing::ScratchDir dir;
  const std::string model = dir.file("mobilenet_v2.onnx");
  qtune::testing::build("network mobilenet_v2 --form qoperator --image 64 " + model);
  if (::testing::Test::HasFatalFailure()) return;
  const onnx_import::ModelGraph graph = onnx_import::read_model_graph(model);
  const std::string target = current_target().key();
  const std::vector<ModelBlock> model_block_list = model_blocks(graph, 2);
  ASSERT_GE(model_block_list.size(), 10u);  // MobileNetV2 has 17 blocks, some alike
  {
    auto db = records::TuningDb::open(dir.file("t.db"), records::OpenMode::create, runtime::search_space_validators());
    evaluation::BlockTuningOptions options;
    options.target_key = target;
    options.threads = 2;
    options.measure = quick_blocks();
    std::vector<std::pair<std::string, std::string>> measured_keys;
    const evaluation::KeyMeasure measure = [&](const std::string& w, const std::string& c, const MeasureSettings& s) {
      measured_keys.emplace_back(w, c);
      return measure_keys_in_process(w, c, s);
    };
    const auto tuned = evaluation::tune_model_blocks(graph, db, measure, options);
    ASSERT_FALSE(tuned.empty());
    for (const auto& t : tuned) {
      EXPECT_EQ(t.errors, 0) << t.name;
      EXPECT_TRUE(t.unfused_ns && t.best_ns) << t.name;
    }
    // Resumable: no candidate is measured again, nor a confirmed one; only a leader whose
    // confirmation the first call left unfinished (its passes are bounded; a busy machine can keep
    // changing the lead) has measurements added.
    const auto correct_measurements = [&](const std::string& w, const std::string& c) {
      records::MeasurementFilter filter;
      filter.workload_key = w;
      filter.correct_only = true;
      int n = 0;
      for (const auto& m : db.measurements(filter)) n += m.config_key == c ? 1 : 0;
      return n;
    };
    std::map<std::pair<std::string, std::string>, int> before;
    for (const auto& key : measured_keys) before[key] = correct_measurements(key.first, key.second);
    measured_keys.clear();
    evaluation::tune_model_blocks(graph, db, measure, options);
    for (const auto& key : measured_keys) EXPECT_LT(before[key], 3) << key.second << " was measured again";
    // Force each block's choice: the even ones fused at their smallest strip, the odd ones not.
    int index = 0;
    for (const auto& t : tuned) {
      records::MeasurementFilter filter;
      filter.workload_key = t.workload_key;
      filter.correct_only = true;
      std::string chosen;
      std::int64_t least = 1 << 30;
      for (const auto& m : db.measurements(filter)) {
        const auto members = static_cast<std::size_t>(std::count(t.workload_key.begin(), t.workload_key.end(), '|') + 1);
        const BlockConfig c = BlockConfig::parse(m.config_key, members);
        if (index % 2 == 0 ? (c.fused && c.rows < least) : !c.fused) {
          chosen = m.config_key;
          least = c.rows;
        }
      }
      ASSERT_FALSE(chosen.empty()) << t.name;
      // More forced measurements than the configuration has (the confirmation measures a finalist
      // as often as newcomers join it): the lower median is a forced one.
      const int measured = correct_measurements(t.workload_key, chosen);
      for (int i = 1; i <= measured + 1; ++i) {
        records::MeasurementRecord forced = db.measurements(filter).front();
        forced.config_key = chosen;
        forced.stats->median_ns = forced.stats->min_ns = forced.stats->mean_ns = i;
        forced.timestamp.clear();
        db.add_measurement(forced);
      }
      ++index;
    }
  }
  const runtime::Runtime tuned_runtime = runtime::Runtime::from_database(dir.file("t.db"));
  ExecutorOptions options;
  options.threads = 2;
  const ModelExecutor fused = ModelExecutor::load(model, tuned_runtime, options);
  const auto fused_steps = std::count_if(fused.steps().begin(), fused.steps().end(),
                                         [](const StepInfo& s) { return s.kind == "inverted_residual"; });
  // The blocks alike share a record: at least half of the model's blocks run fused.
  EXPECT_GE(fused_steps * 2, static_cast<long>(model_block_list.size()) - 1);
  EXPECT_LT(fused_steps, static_cast<long>(model_block_list.size()));
  for (const StepInfo& s : fused.steps()) {
    if (s.kind != "inverted_residual") continue;
    EXPECT_EQ(s.selection.rfind("tuned block fused=1;rows=", 0), 0u) << s.selection;
  }
  options.fusion = ExecutorOptions::Fusion::off;
  const ModelExecutor unfused = ModelExecutor::load(model, tuned_runtime, options);
  EXPECT_TRUE(std::none_of(unfused.steps().begin(), unfused.steps().end(), [](const StepInfo& s) { return s.fused; }));
  std::map<std::string, Tensor> inputs;
  for (const auto& info : fused.inputs()) {
    const std::string file = dir.file(tensor_file_name(info.name, ".npy"));
    qtune::testing::build("input " + file + " --shape " + qtune::testing::dims(info.shape) + " --seed 5");
    inputs[info.name] = read_tensor(file);
  }
  const std::vector<Tensor> got = fused.run(inputs), expected = unfused.run(inputs);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].bytes, expected[i].bytes) << fused.outputs()[i].name;
}

}  // namespace block_tuning_test
}  // namespace qtune::executor
