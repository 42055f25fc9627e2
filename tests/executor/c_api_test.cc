// The whole-model C API (qtune/qtune.h, qtune_model_*): a model loaded through it describes its
// inputs and outputs as the C++ executor does and runs to the same bytes as ModelExecutor::run,
// tuning data given to it is used, and every failure (null arguments, missing, empty and corrupt
// files, a bad tuning file, indexes out of range, bad thread counts) is a status with a message
// naming the problem, never a crash or an exception.
#include "qtune/qtune.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "qtune/executor/model_executor.h"
#include "qtune/onnx_import/model.h"
#include "runtime/runtime_test_support.h"
#include "scratch_dir.h"

namespace {

using qtune::executor::ModelExecutor;
using qtune::executor::TensorInfo;

std::string c_api_source(const std::string& relative) { return std::string(QTUNE_SOURCE_DIR) + "/" + relative; }

void c_api_build(const std::string& arguments) {
  const std::string command =
      std::string(QTUNE_PYTHON) + " " + c_api_source("tests/executor/build_networks.py") + " " + arguments;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

void c_api_write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string c_api_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool c_api_contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Models built once for the whole file (python3-onnx takes a moment per model).
class CModelApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new qtune::testing::ScratchDir();
    c_api_build("network mobilenet_v2 " + mobilenet() + " --form qoperator --image 64");
    c_api_build("edge u8_weights " + u8_weights());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string mobilenet() { return dir_->file("mobilenet_v2_64.onnx"); }
  static std::string u8_weights() { return dir_->file("u8_weights.onnx"); }
  static std::string file(const std::string& name) { return dir_->file(name); }

  void TearDown() override { qtune_model_destroy(model_); }

  qtune_model* model_ = nullptr;

 private:
  static qtune::testing::ScratchDir* dir_;
};

qtune::testing::ScratchDir* CModelApi::dir_ = nullptr;

qtune_dtype expected_dtype(qtune::onnx_import::ElementType type) {
  switch (type) {
    case qtune::onnx_import::ElementType::u8: return QTUNE_DTYPE_U8;
    case qtune::onnx_import::ElementType::s8: return QTUNE_DTYPE_S8;
    case qtune::onnx_import::ElementType::s32: return QTUNE_DTYPE_S32;
    case qtune::onnx_import::ElementType::f32: return QTUNE_DTYPE_F32;
  }
  return QTUNE_DTYPE_U8;
}

void expect_same_info(const qtune_tensor_info& got, const TensorInfo& want) {
  EXPECT_EQ(std::string(got.name), want.name);
  EXPECT_EQ(got.type, expected_dtype(want.type)) << want.name;
  ASSERT_EQ(got.rank, want.shape.size()) << want.name;
  for (std::size_t d = 0; d < got.rank; ++d) EXPECT_EQ(got.dims[d], want.shape[d]) << want.name << " dim " << d;
  EXPECT_EQ(got.bytes, want.bytes()) << want.name;
}

// Inputs of every type: floats in [-1.2, 1.2] (a little past the quantized range), integers over their range.
std::vector<std::vector<std::uint8_t>> random_inputs(const std::vector<TensorInfo>& inputs, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<std::uint8_t>> out;
  for (const TensorInfo& t : inputs) {
    std::vector<std::uint8_t> bytes(t.bytes());
    if (t.type == qtune::onnx_import::ElementType::f32) {
      std::uniform_real_distribution<float> value(-1.2f, 1.2f);
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        const float v = value(rng);
        std::memcpy(&bytes[i], &v, 4);
      }
    } else {
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

// The model through the C API and through ModelExecutor (same tuning file, same threads): the same
// inputs and outputs, and outputs equal byte for byte.
void expect_c_run_equals_executor(const std::string& model_path, const char* tuning, int threads) {
  SCOPED_TRACE(model_path + " threads " + std::to_string(threads));
  const qtune::runtime::Runtime runtime =
      tuning != nullptr ? qtune::runtime::Runtime::from_file(tuning) : qtune::runtime::Runtime();
  qtune::executor::ExecutorOptions options;
  options.threads = threads;
  const ModelExecutor executor = ModelExecutor::load(model_path, runtime, options);

  qtune_model* model = nullptr;
  ASSERT_EQ(qtune_model_load(model_path.c_str(), tuning, threads, &model), QTUNE_OK) << qtune_last_error();
  EXPECT_STREQ(qtune_last_error(), "");
  ASSERT_EQ(qtune_model_input_count(model), executor.inputs().size());
  ASSERT_EQ(qtune_model_output_count(model), executor.outputs().size());
  EXPECT_EQ(qtune_model_arena_bytes(model), executor.arena().arena_bytes);
  EXPECT_GT(qtune_model_arena_bytes(model), 0u);
  ASSERT_EQ(qtune_model_step_count(model), executor.steps().size());
  for (std::size_t i = 0; i < executor.steps().size(); ++i) {
    const char *name = nullptr, *op_type = nullptr, *selection = nullptr;
    ASSERT_EQ(qtune_model_step_info(model, i, &name, &op_type, &selection), QTUNE_OK) << qtune_last_error();
    EXPECT_EQ(std::string(name), executor.steps()[i].name);
    EXPECT_EQ(std::string(op_type), executor.steps()[i].op_type);
    EXPECT_EQ(std::string(selection), executor.steps()[i].selection);
  }
  for (std::size_t i = 0; i < executor.inputs().size(); ++i) {
    qtune_tensor_info info{};
    ASSERT_EQ(qtune_model_input_info(model, i, &info), QTUNE_OK) << qtune_last_error();
    expect_same_info(info, executor.inputs()[i]);
  }
  for (std::size_t i = 0; i < executor.outputs().size(); ++i) {
    qtune_tensor_info info{};
    ASSERT_EQ(qtune_model_output_info(model, i, &info), QTUNE_OK) << qtune_last_error();
    expect_same_info(info, executor.outputs()[i]);
  }

  for (const unsigned seed : {1u, 2u}) {
    const auto inputs = random_inputs(executor.inputs(), seed);
    std::vector<const void*> in;
    for (const auto& b : inputs) in.push_back(b.data());
    // Outputs prefilled differently, so that an output left unwritten cannot compare equal.
    std::vector<std::vector<std::uint8_t>> want, got;
    std::vector<void*> want_ptrs, got_ptrs;
    for (const TensorInfo& t : executor.outputs()) {
      want.emplace_back(t.bytes(), 0x00);
      got.emplace_back(t.bytes(), 0xA5);
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
      want_ptrs.push_back(want[i].data());
      got_ptrs.push_back(got[i].data());
    }
    executor.run(in.data(), want_ptrs.data());
    ASSERT_EQ(qtune_model_run(model, in.data(), got_ptrs.data()), QTUNE_OK) << qtune_last_error();
    EXPECT_STREQ(qtune_last_error(), "");
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(want[i] == got[i]) << "output " << executor.outputs()[i].name << " differs, seed " << seed;
  }
  qtune_model_destroy(model);
}

TEST_F(CModelApi, RunsLikeTheExecutorByteForByte) {
  expect_c_run_equals_executor(mobilenet(), nullptr, 1);
  expect_c_run_equals_executor(mobilenet(), nullptr, 2);
  expect_c_run_equals_executor(u8_weights(), nullptr, 1);
}

TEST_F(CModelApi, MobileNetDescribesItsInputAndClassifierOutputs) {
  ASSERT_EQ(qtune_model_load(mobilenet().c_str(), nullptr, 1, &model_), QTUNE_OK) << qtune_last_error();
  ASSERT_EQ(qtune_model_input_count(model_), 1u);
  qtune_tensor_info in{};
  ASSERT_EQ(qtune_model_input_info(model_, 0, &in), QTUNE_OK);
  EXPECT_STREQ(in.name, "input");
  EXPECT_EQ(in.type, QTUNE_DTYPE_F32);
  ASSERT_EQ(in.rank, 4u);
  EXPECT_EQ(std::vector<std::int64_t>(in.dims, in.dims + 4), (std::vector<std::int64_t>{1, 3, 64, 64}));
  EXPECT_EQ(in.bytes, 3u * 64 * 64 * 4);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < qtune_model_output_count(model_); ++i) {
    qtune_tensor_info out{};
    ASSERT_EQ(qtune_model_output_info(model_, i, &out), QTUNE_OK);
    names.emplace_back(out.name);
    EXPECT_EQ(out.type, QTUNE_DTYPE_F32);
    EXPECT_EQ(out.bytes, 1000u * 4);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"logits", "probabilities"}));
}

// A tuned configuration for the model's first layer, in a JSON-lines log and in a database: the C
// API loads it and the layer runs it, with results equal to the executor's under the same data.
TEST_F(CModelApi, UsesTheTuningData) {
  using namespace qtune::runtime::testing;
  const qtune::onnx_import::Model layers = qtune::onnx_import::read_model(mobilenet());
  ASSERT_FALSE(layers.layers.empty());
  const qtune::Workload w = layers.layers[0].workload;
  const qtune::Config tuned = non_default_config(w);
  const std::string log = file("tuned.jsonl"), db = file("tuned.db");
  write_log(log, {measurement(w.key(), current_target_key(), tuned.key(), 10.0)});
  write_database(db, {measurement(w.key(), current_target_key(), tuned.key(), 10.0)});
  for (const std::string& tuning : {log, db}) {
    SCOPED_TRACE(tuning);
    qtune_model* model = nullptr;
    ASSERT_EQ(qtune_model_load(mobilenet().c_str(), tuning.c_str(), 1, &model), QTUNE_OK) << qtune_last_error();
    std::size_t tuned_steps = 0;
    for (std::size_t i = 0; i < qtune_model_step_count(model); ++i) {
      const char* selection = nullptr;
      ASSERT_EQ(qtune_model_step_info(model, i, nullptr, nullptr, &selection), QTUNE_OK);
      if (std::string(selection) == "tuned " + tuned.key()) ++tuned_steps;
    }
    EXPECT_GE(tuned_steps, 1u) << "no step runs the tuned configuration " << tuned.key();
    qtune_model_destroy(model);
    // Without the tuning data no step is tuned.
    ASSERT_EQ(qtune_model_load(mobilenet().c_str(), nullptr, 1, &model), QTUNE_OK) << qtune_last_error();
    for (std::size_t i = 0; i < qtune_model_step_count(model); ++i) {
      const char* selection = nullptr;
      ASSERT_EQ(qtune_model_step_info(model, i, nullptr, nullptr, &selection), QTUNE_OK);
      EXPECT_FALSE(c_api_contains(selection, "tuned")) << selection;
    }
    qtune_model_destroy(model);
    expect_c_run_equals_executor(mobilenet(), tuning.c_str(), 1);
  }
}

TEST_F(CModelApi, LoadErrorsAreStatusesWithMessages) {
  const std::string path = mobilenet();
  // A stale handle is overwritten with NULL on every failure.
  auto* const stale = reinterpret_cast<qtune_model*>(static_cast<std::uintptr_t>(0x10));

  EXPECT_EQ(qtune_model_load(path.c_str(), nullptr, 1, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "qtune_model_load: out must not be NULL")) << qtune_last_error();

  model_ = stale;
  EXPECT_EQ(qtune_model_load(nullptr, nullptr, 1, &model_), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(model_, nullptr);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "model_path must not be NULL")) << qtune_last_error();

  for (const int threads : {0, -1, -2147483647 - 1}) {
    model_ = stale;
    EXPECT_EQ(qtune_model_load(path.c_str(), nullptr, threads, &model_), QTUNE_ERROR_INVALID_ARGUMENT) << threads;
    EXPECT_EQ(model_, nullptr);
    EXPECT_TRUE(c_api_contains(qtune_last_error(), "threads must be >= 1, got " + std::to_string(threads))) << qtune_last_error();
  }

  const std::string missing = file("no-such-model.onnx");
  model_ = stale;
  EXPECT_EQ(qtune_model_load(missing.c_str(), nullptr, 1, &model_), QTUNE_ERROR_FILE);
  EXPECT_EQ(model_, nullptr);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), missing + ": cannot open the model")) << qtune_last_error();
  // A directory opens as a stream on Linux but reads nothing: the reader rejects it.
  model_ = stale;
  EXPECT_NE(qtune_model_load(file("").c_str(), nullptr, 1, &model_), QTUNE_OK);
  EXPECT_EQ(model_, nullptr);
  EXPECT_STRNE(qtune_last_error(), "");

  // Garbage, an empty file, and the model cut short: bad models, named.
  std::mt19937 rng(7);
  std::string garbage(4096, '\0');
  for (auto& c : garbage) c = static_cast<char>(rng());
  const std::string bytes = c_api_read(path);
  ASSERT_GT(bytes.size(), 1000u);
  const std::vector<std::pair<std::string, std::string>> corrupt = {
      {"garbage.onnx", garbage}, {"empty.onnx", ""}, {"truncated.onnx", bytes.substr(0, bytes.size() / 2)},
      {"text.onnx", "ir_version: 7\ngraph { name: 'g' }\n"}};
  for (const auto& [name, content] : corrupt) {
    const std::string bad = file(name);
    c_api_write(bad, content);
    model_ = stale;
    EXPECT_EQ(qtune_model_load(bad.c_str(), nullptr, 1, &model_), QTUNE_ERROR_MODEL) << name << ": " << qtune_last_error();
    EXPECT_EQ(model_, nullptr);
    EXPECT_TRUE(c_api_contains(qtune_last_error(), "qtune_model_load: " + bad + ": ")) << qtune_last_error();
  }

  // Tuning files: missing and damaged are the tuning file's problem, named as such.
  model_ = stale;
  const std::string no_tuning = file("no-such-tuning.jsonl");
  EXPECT_EQ(qtune_model_load(path.c_str(), no_tuning.c_str(), 1, &model_), QTUNE_ERROR_FILE);
  EXPECT_EQ(model_, nullptr);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), no_tuning)) << qtune_last_error();
  const std::string bad_log = file("bad.jsonl");
  c_api_write(bad_log, "{\"not\": \"a measurement\"}\n");
  model_ = stale;
  EXPECT_EQ(qtune_model_load(path.c_str(), bad_log.c_str(), 1, &model_), QTUNE_ERROR_FILE);
  EXPECT_EQ(model_, nullptr);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), bad_log)) << qtune_last_error();

  // A later success clears the message.
  ASSERT_EQ(qtune_model_load(path.c_str(), nullptr, 1, &model_), QTUNE_OK) << qtune_last_error();
  EXPECT_STREQ(qtune_last_error(), "");
  EXPECT_STREQ(qtune_status_string(QTUNE_ERROR_MODEL), "bad model");
}

TEST_F(CModelApi, CallErrorsAreStatusesWithMessages) {
  ASSERT_EQ(qtune_model_load(u8_weights().c_str(), nullptr, 1, &model_), QTUNE_OK) << qtune_last_error();
  const std::size_t n_in = qtune_model_input_count(model_), n_out = qtune_model_output_count(model_);
  ASSERT_GE(n_in, 1u);
  ASSERT_GE(n_out, 2u);

  // NULL models: counts are 0, functions with a status say which argument.
  EXPECT_EQ(qtune_model_input_count(nullptr), 0u);
  EXPECT_EQ(qtune_model_output_count(nullptr), 0u);
  EXPECT_EQ(qtune_model_arena_bytes(nullptr), 0u);
  EXPECT_EQ(qtune_model_step_count(nullptr), 0u);
  qtune_model_destroy(nullptr);
  qtune_tensor_info info{};
  EXPECT_EQ(qtune_model_input_info(nullptr, 0, &info), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "qtune_model_input_info: model must not be NULL")) << qtune_last_error();
  EXPECT_EQ(qtune_model_output_info(nullptr, 0, &info), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_model_step_info(nullptr, 0, nullptr, nullptr, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(qtune_model_input_info(model_, 0, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "info must not be NULL")) << qtune_last_error();
  EXPECT_EQ(qtune_model_output_info(model_, 0, nullptr), QTUNE_ERROR_NULL_ARGUMENT);

  // Indexes out of range, including the largest.
  for (const std::size_t index : {n_in, n_in + 1, static_cast<std::size_t>(-1)}) {
    EXPECT_EQ(qtune_model_input_info(model_, index, &info), QTUNE_ERROR_OUT_OF_RANGE);
    EXPECT_TRUE(c_api_contains(qtune_last_error(), "input index " + std::to_string(index) + " is past the model's " +
                                                 std::to_string(n_in) + " inputs"))
        << qtune_last_error();
  }
  EXPECT_EQ(qtune_model_output_info(model_, n_out, &info), QTUNE_ERROR_OUT_OF_RANGE);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "output index " + std::to_string(n_out) + " is past the model's " +
                                               std::to_string(n_out) + " outputs"))
      << qtune_last_error();
  const std::size_t steps = qtune_model_step_count(model_);
  EXPECT_EQ(qtune_model_step_info(model_, steps, nullptr, nullptr, nullptr), QTUNE_ERROR_OUT_OF_RANGE);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "step index " + std::to_string(steps))) << qtune_last_error();

  // Runs: NULL model, NULL arrays, a NULL buffer inside either array (named by index and tensor).
  std::vector<std::vector<std::uint8_t>> in_bytes, out_bytes;
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<std::string> in_names, out_names;
  for (std::size_t i = 0; i < n_in; ++i) {
    ASSERT_EQ(qtune_model_input_info(model_, i, &info), QTUNE_OK);
    in_bytes.emplace_back(info.bytes, 0);
    in_names.emplace_back(info.name);
  }
  for (std::size_t i = 0; i < n_out; ++i) {
    ASSERT_EQ(qtune_model_output_info(model_, i, &info), QTUNE_OK);
    out_bytes.emplace_back(info.bytes, 0);
    out_names.emplace_back(info.name);
  }
  for (auto& b : in_bytes) in.push_back(b.data());
  for (auto& b : out_bytes) out.push_back(b.data());
  EXPECT_EQ(qtune_model_run(nullptr, in.data(), out.data()), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "qtune_model_run: model must not be NULL")) << qtune_last_error();
  EXPECT_EQ(qtune_model_run(model_, nullptr, out.data()), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "inputs must not be NULL")) << qtune_last_error();
  EXPECT_EQ(qtune_model_run(model_, in.data(), nullptr), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "outputs must not be NULL")) << qtune_last_error();
  const std::size_t last_in = n_in - 1, last_out = n_out - 1;
  const void* saved_in = in[last_in];
  in[last_in] = nullptr;
  EXPECT_EQ(qtune_model_run(model_, in.data(), out.data()), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "inputs[" + std::to_string(last_in) + "] ('" + in_names[last_in] +
                                               "') must not be NULL"))
      << qtune_last_error();
  in[last_in] = saved_in;
  void* saved_out = out[last_out];
  out[last_out] = nullptr;
  EXPECT_EQ(qtune_model_run(model_, in.data(), out.data()), QTUNE_ERROR_NULL_ARGUMENT);
  EXPECT_TRUE(c_api_contains(qtune_last_error(), "outputs[" + std::to_string(last_out) + "] ('" + out_names[last_out] +
                                               "') must not be NULL"))
      << qtune_last_error();
  out[last_out] = saved_out;
  // The model still runs after the failed calls.
  EXPECT_EQ(qtune_model_run(model_, in.data(), out.data()), QTUNE_OK) << qtune_last_error();
  EXPECT_STREQ(qtune_last_error(), "");
}

// The last error is per thread: a failure on one thread leaves another thread's message alone.
TEST_F(CModelApi, LastErrorIsPerThread) {
  EXPECT_EQ(qtune_model_load(nullptr, nullptr, 1, &model_), QTUNE_ERROR_NULL_ARGUMENT);
  const std::string mine = qtune_last_error();
  std::string theirs;
  std::thread other([&] {
    EXPECT_EQ(qtune_model_input_info(nullptr, 0, nullptr), QTUNE_ERROR_NULL_ARGUMENT);
    theirs = qtune_last_error();
  });
  other.join();
  EXPECT_EQ(std::string(qtune_last_error()), mine);
  EXPECT_TRUE(c_api_contains(theirs, "qtune_model_input_info")) << theirs;
}

}  // namespace
