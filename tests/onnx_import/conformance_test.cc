// ONNX's own node tests (libonnx-testdata) for the quantized operators qtune computes, run
// through qtune's runtime: the output must equal ONNX's expected output exactly.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "qtune/onnx_import/layer_execution.h"
#include "qtune/onnx_import/model.h"
#include "qtune/onnx_import/tensor_file.h"

namespace {

namespace fs = std::filesystem;
using namespace qtune::onnx_import;

// Every installed node test of these operators (test_qlinearconv, test_qlinearmatmul_2D/3D,
// test_convinteger_*, test_basic_convinteger, test_matmulinteger and newer type variants).
std::vector<std::string> node_tests() {
  const fs::path root = QTUNE_ONNX_NODE_TESTS;
  std::vector<std::string> names;
  if (!fs::is_directory(root)) return names;
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    for (const char* prefix : {"test_qlinearconv", "test_qlinearmatmul", "test_convinteger", "test_basic_convinteger",
                               "test_matmulinteger"}) {
      if (name.rfind(prefix, 0) == 0) names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OnnxConformance, TheNodeTestsAreInstalled) {
  const auto names = node_tests();
  ASSERT_GE(names.size(), 7u) << "libonnx-testdata's node tests not found in " << QTUNE_ONNX_NODE_TESTS
                              << " (scripts/setup.sh installs libonnx-testdata)";
  for (const char* expected : {"test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D",
                               "test_convinteger_with_padding", "test_convinteger_without_padding",
                               "test_basic_convinteger", "test_matmulinteger"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

class NodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NodeTest, RuntimeOutputEqualsOnnxExpectedOutput) {
  const fs::path dir = fs::path(QTUNE_ONNX_NODE_TESTS) / GetParam();
  for (const auto& data_set : fs::directory_iterator(dir)) {
    if (!data_set.is_directory()) continue;
    SCOPED_TRACE(data_set.path().string());
    // Input 0 is the activation; the others (weights, scales, zero points) become constants.
    ImportOptions options;
    TensorFile input;
    for (int i = 0; fs::exists(data_set.path() / ("input_" + std::to_string(i) + ".pb")); ++i) {
      const std::string file = (data_set.path() / ("input_" + std::to_string(i) + ".pb")).string();
      if (i == 0) {
        input = read_tensor_file(file);
      } else {
        options.constant_input_files[read_tensor_file(file).name] = file;
      }
    }
    const Model model = read_model((dir / "model.onnx").string(), options);
    ASSERT_EQ(model.layers.size(), 1u);
    EXPECT_TRUE(model.skipped.empty());
    const TensorFile expected = read_tensor_file((data_set.path() / "output_0.pb").string());
    const ModelLayer& layer = model.layers[0];
    EXPECT_EQ(layer.output_shape, expected.dims);
    const qtune::runtime::Runtime runtime;
    for (const int threads : {1, 2}) {
      EXPECT_EQ(run_layer(runtime, layer, input.bytes, threads), expected.bytes) << threads << " thread(s)";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(LibonnxTestdata, NodeTest, ::testing::ValuesIn(node_tests()),
                         [](const auto& info) { return info.param; });

}  // namespace
