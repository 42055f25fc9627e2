// ONNX's own node tests (Debian's libonnx-testdata) of every operation the executor runs, through
// the whole-model path: the model read by read_model_graph, compiled and run, each output against
// ONNX's expected output (quantized: equal; float: within 1e-5 relative, the tests' references
// being NumPy's). The node tests give weights, scales and shapes as graph inputs: every input but
// the activations becomes a constant, as in a deployed model. (test_globalaveragepool is of opset
// 1, older than any quantized model; GlobalAveragePool runs in the networks' tests.)
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "qtune/onnx_import/tensor_file.h"

namespace {

namespace fs = std::filesystem;
using qtune::executor::ElementType;
using qtune::executor::ModelExecutor;
using qtune::executor::Tensor;

struct NodeCase {
  std::string name;
  int activations = 1;  // inputs 0 .. activations-1 are tensors; the rest are constants
};

void PrintTo(const NodeCase& c, std::ostream* out) { *out << c.name; }

std::vector<NodeCase> node_cases() {
  std::vector<NodeCase> cases;
  for (const char* name :
       {"test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D", "test_quantizelinear", "test_dequantizelinear",
        "test_maxpool_2d_uint8", "test_maxpool_2d_default", "test_maxpool_2d_pads", "test_maxpool_2d_strides",
        "test_maxpool_2d_same_upper", "test_maxpool_2d_same_lower", "test_maxpool_2d_ceil", "test_maxpool_2d_dilations",
        "test_maxpool_2d_precomputed_pads", "test_averagepool_2d_default", "test_averagepool_2d_pads",
        "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_precomputed_pads",
        "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
        "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
        "test_averagepool_2d_strides", "test_averagepool_2d_ceil",
        "test_softmax_axis_0", "test_softmax_axis_1", "test_softmax_axis_2", "test_softmax_default_axis", "test_softmax_example",
        "test_softmax_large_number", "test_softmax_negative_axis", "test_relu", "test_clip", "test_clip_inbounds",
        "test_clip_outbounds", "test_clip_splitbounds", "test_clip_example", "test_flatten_axis0", "test_flatten_axis1",
        "test_flatten_axis2", "test_flatten_axis3", "test_flatten_default_axis", "test_flatten_negative_axis1",
        "test_reshape_reordered_all_dims", "test_reshape_negative_dim", "test_reshape_one_dim", "test_reshape_reduced_dims",
        "test_reshape_zero_dim", "test_squeeze", "test_squeeze_negative_axes", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
        "test_unsqueeze_two_axes", "test_unsqueeze_negative_axes", "test_transpose_default", "test_transpose_all_permutations_0",
        "test_transpose_all_permutations_3", "test_transpose_all_permutations_5"})
    cases.push_back({name, 1});
  for (const char* name : {"test_concat_2d_axis_0", "test_concat_2d_axis_1", "test_concat_3d_axis_0", "test_concat_3d_axis_1",
                           "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1", "test_concat_1d_axis_0"})
    cases.push_back({name, 2});
  cases.push_back({"test_add", 2});
  return cases;
}

std::string compare(const qtune::onnx_import::TensorFile& expected, const Tensor& got) {
  if (expected.dims != got.shape) return "the shapes differ";
  if (expected.bytes.size() != got.bytes.size()) return "the sizes differ";
  if (got.type != ElementType::f32) return expected.bytes == got.bytes ? "" : "the values differ";
  for (std::size_t i = 0; i < got.bytes.size(); i += 4) {
    float e, g;
    std::memcpy(&e, &expected.bytes[i], 4);
    std::memcpy(&g, &got.bytes[i], 4);
    if (!(std::fabs(e - g) <= 1e-5f * std::max(1.0f, std::fabs(e))))
      return "element " + std::to_string(i / 4) + ": " + std::to_string(g) + " vs " + std::to_string(e);
  }
  return "";
}

class NodeTest : public ::testing::TestWithParam<NodeCase> {};

TEST_P(NodeTest, ExecutorOutputEqualsOnnxExpectedOutput) {
  const fs::path dir = fs::path(QTUNE_ONNX_NODE_TESTS) / GetParam().name;
  ASSERT_TRUE(fs::exists(dir / "model.onnx")) << dir << " (libonnx-testdata: scripts/setup.sh installs it)";
  int data_sets = 0;
  for (const auto& data_set : fs::directory_iterator(dir)) {
    if (!data_set.is_directory()) continue;
    ++data_sets;
    SCOPED_TRACE(data_set.path().string());
    qtune::executor::ExecutorOptions options;
    std::map<std::string, Tensor> inputs;
    for (int i = 0; fs::exists(data_set.path() / ("input_" + std::to_string(i) + ".pb")); ++i) {
      const std::string file = (data_set.path() / ("input_" + std::to_string(i) + ".pb")).string();
      const auto tensor = qtune::onnx_import::read_tensor_file(file);
      if (i < GetParam().activations) inputs[tensor.name] = qtune::executor::read_tensor(file);
      else options.import.constant_input_files[tensor.name] = file;
    }
    const qtune::runtime::Runtime runtime;
    for (const int threads : {1, 2}) {
      options.threads = threads;
      const ModelExecutor model = ModelExecutor::load((dir / "model.onnx").string(), runtime, options);
      const auto outputs = model.run(inputs);
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto expected = qtune::onnx_import::read_tensor_file((data_set.path() / ("output_" + std::to_string(k) + ".pb")).string());
        EXPECT_EQ(compare(expected, outputs[k]), "") << "output " << k << ", " << threads << " thread(s)";
      }
    }
  }
  EXPECT_GT(data_sets, 0);
}

INSTANTIATE_TEST_SUITE_P(LibonnxTestdata, NodeTest, ::testing::ValuesIn(node_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
