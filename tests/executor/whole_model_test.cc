// Whole models run by the executor against onnxruntime: the three networks of workloads/ (QOperator
// and QDQ, written by build_networks.py with every quantized intermediate as a graph output) and
// the edge-case models, at 1 and 2 threads. Every quantized tensor must equal onnxruntime's element
// for element; float tensors dequantized from equal integers must be equal too, and a float
// Softmax within 1e-6 relative.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "onnxruntime_reference.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using qtune::executor::ElementType;
using qtune::executor::ModelExecutor;
using qtune::executor::Tensor;

using qtune::testing::build;
using qtune::testing::dims;
using qtune::testing::NetworkCase;
using qtune::testing::run_onnxruntime;

// "" when equal, else the count of differing elements and the first one.
std::string compare(const Tensor& expected, const Tensor& got, bool float_math) {
  if (expected.type != got.type) return "types differ";
  if (expected.shape != got.shape) return "shapes differ: onnxruntime [" + dims(expected.shape) + "], qtune [" + dims(got.shape) + "]";
  const std::int64_t n = got.elements();
  // Float math: within 1e-6 of the element, or of the tensor's largest magnitude where terms cancel.
  float largest = 0;
  for (std::int64_t i = 0; got.type == ElementType::f32 && i < n; ++i) {
    float e;
    std::memcpy(&e, &expected.bytes[4 * static_cast<std::size_t>(i)], 4);
    largest = std::max(largest, std::fabs(e));
  }
  std::int64_t differing = 0, first = -1;
  std::string first_text;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    bool same = true;
    std::string text;
    switch (got.type) {
      case ElementType::u8: same = expected.bytes[k] == got.bytes[k]; text = std::to_string(got.bytes[k]) + " vs " + std::to_string(expected.bytes[k]); break;
      case ElementType::s8: same = expected.bytes[k] == got.bytes[k]; text = std::to_string(static_cast<std::int8_t>(got.bytes[k])) + " vs " + std::to_string(static_cast<std::int8_t>(expected.bytes[k])); break;
      case ElementType::s32: same = std::memcmp(&expected.bytes[4 * k], &got.bytes[4 * k], 4) == 0; break;
      case ElementType::f32: {
        float e, g;
        std::memcpy(&e, &expected.bytes[4 * k], 4);
        std::memcpy(&g, &got.bytes[4 * k], 4);
        same = float_math ? std::fabs(e - g) <= 1e-6f * std::max(std::fabs(e), largest) : e == g;
        text = std::to_string(g) + " vs " + std::to_string(e);
        break;
      }
    }
    if (!same) {
      if (first < 0) {
        first = i;
        first_text = text;
      }
      ++differing;
    }
  }
  if (!differing) return "";
  return std::to_string(differing) + " of " + std::to_string(n) + " differ; the first at " + std::to_string(first) + ": qtune " + first_text +
         " (onnxruntime)";
}

// Builds the model, runs it in onnxruntime and in the executor at 1 and 2 threads, compares every
// output. `fused`: the model has fused blocks (no intermediate is an output), and the executor
// without fusion gives the same bytes; `inverted_residuals`: the inverted-residual blocks it runs fused at least.
void check_against_onnxruntime(const std::string& build_arguments, const std::string& model_name, bool fused = false,
                               long inverted_residuals = 0) {
  qtune::testing::ScratchDir dir;
  const std::string model = dir.file(model_name + ".onnx");
  build(build_arguments + " " + model);
  if (::testing::Test::HasFatalFailure()) return;
  const qtune::runtime::Runtime runtime;
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    qtune::executor::ExecutorOptions options;
    options.threads = threads;
    options.fusion = fused ? qtune::executor::ExecutorOptions::Fusion::all : qtune::executor::ExecutorOptions::Fusion::tuned;
    const ModelExecutor executor = ModelExecutor::load(model, runtime, options);
    // The arena holds no more than the largest set of tensors live at one step, but for alignment.
    const auto& arena = executor.arena();
    EXPECT_GE(arena.arena_bytes, arena.peak_live_bytes);
    EXPECT_LE(arena.arena_bytes, arena.peak_live_bytes + 64 * executor.steps().size());
    EXPECT_LE(arena.arena_bytes, arena.all_tensor_bytes + 64 * executor.steps().size());
    std::map<std::string, Tensor> inputs;
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& info : executor.inputs()) {
      const std::string file = dir.file(qtune::executor::tensor_file_name(info.name, ".npy"));
      if (threads == 1) build("input " + file + " --shape " + dims(info.shape) + " --seed " + std::to_string(inputs.size() + 7));
      inputs[info.name] = qtune::executor::read_tensor(file);
      files.emplace_back(info.name, file);
    }
    const std::string out = dir.file("ort" + std::to_string(threads));
    fs::create_directories(out);
    run_onnxruntime(model, files, out, threads);
    if (::testing::Test::HasFatalFailure()) return;
    const std::vector<Tensor> got = executor.run(inputs);
    ASSERT_EQ(got.size(), executor.outputs().size());
    if (fused) {
      const auto blocks = std::count_if(executor.steps().begin(), executor.steps().end(), [](const auto& s) { return s.fused; });
      EXPECT_GT(blocks, 0) << "no block was fused";
      const auto blocks_of_kind = std::count_if(executor.steps().begin(), executor.steps().end(),
                                                [](const auto& s) { return s.kind == "inverted_residual"; });
      if (inverted_residuals > 0) EXPECT_GE(blocks_of_kind, inverted_residuals);
      else EXPECT_EQ(blocks_of_kind, 0);
      options.fusion = qtune::executor::ExecutorOptions::Fusion::off;
      const ModelExecutor unfused = ModelExecutor::load(model, runtime, options);
      EXPECT_TRUE(std::none_of(unfused.steps().begin(), unfused.steps().end(), [](const auto& s) { return s.fused; }));
      EXPECT_LT(executor.steps().size(), unfused.steps().size());
      const std::vector<Tensor> reference = unfused.run(inputs);
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i].bytes, reference[i].bytes) << "output '" << executor.outputs()[i].name << "' fused and unfused";
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::string& name = executor.outputs()[i].name;
      const Tensor expected = qtune::executor::read_tensor(out + "/" + qtune::executor::tensor_file_name(name, ".npy"));
      bool float_math = false;  // a float tensor computed by float arithmetic (Softmax), not dequantized
      // onnxruntime computes a matrix product with per-channel weights and a float output in float
      // (its MatMulIntegerToFloat takes per-tensor scales only): equal to 1e-6 relative.
      for (const auto& op : executor.graph().ops)
        float_math = float_math || (op.output == name && (op.kind == qtune::onnx_import::GraphOpKind::softmax ||
                                                          (op.kind == qtune::onnx_import::GraphOpKind::float_layer && op.float_scales.size() > 1)));
      EXPECT_EQ(compare(expected, got[i], float_math), "") << "output '" << name << "'";
    }
  }
}

class Network : public ::testing::TestWithParam<NetworkCase> {};

TEST_P(Network, EveryQuantizedTensorEqualsOnnxRuntimes) {
  const NetworkCase& c = GetParam();
  check_against_onnxruntime("network " + c.network + " --form " + c.form + " --intermediates --image " + std::to_string(c.image),
                            c.name());
}

INSTANTIATE_TEST_SUITE_P(Networks, Network,
                         ::testing::Values(NetworkCase{"mobilenet_v2", "qoperator", 96}, NetworkCase{"mobilenet_v2", "qdq", 96},
                                           NetworkCase{"resnet50", "qoperator", 64}, NetworkCase{"resnet50", "qdq", 64},
                                           NetworkCase{"inception_v3", "qoperator", 107}, NetworkCase{"inception_v3", "qdq", 107},
                                           NetworkCase{"mobilenet_v2", "qoperator", 224}, NetworkCase{"resnet50", "qdq", 224}),
                         [](const auto& info) { return info.param.name(); });

// Without the intermediates as outputs, fused blocks run (ExecutorOptions::fusion, `--fusion`):
// MobileNetV2's inverted-residual blocks whose intermediates would not stay in cache (at 96x96 the
// first stride-2 one), the pointwise convolutions before its other Adds with them, ResNet-50's
// residual blocks' last convolutions with their Adds.
class FusedNetwork : public ::testing::TestWithParam<NetworkCase> {};

TEST_P(FusedNetwork, OutputsEqualOnnxRuntimesAndTheUnfusedRun) {
  const NetworkCase& c = GetParam();
  check_against_onnxruntime("network " + c.network + " --form " + c.form + " --image " + std::to_string(c.image), c.name(), true,
                            c.network == "mobilenet_v2" ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(Networks, FusedNetwork,
                         ::testing::Values(NetworkCase{"mobilenet_v2", "qoperator", 96}, NetworkCase{"mobilenet_v2", "qdq", 96},
                                           NetworkCase{"resnet50", "qdq", 64}),
                         [](const auto& info) { return info.param.name(); });

class Edge : public ::testing::TestWithParam<std::string> {};

TEST_P(Edge, EveryQuantizedTensorEqualsOnnxRuntimes) { check_against_onnxruntime("edge " + GetParam(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(Edges, Edge,
                         ::testing::Values("u8_weights", "s8_activations", "ceil_pool", "qlinear_softmax", "concat_scales", "views",
                                           "float_bias", "float_logits", "clip"),
                         [](const auto& info) { return info.param; });

}  // namespace
