// The model commands as a user runs them: `qtune workloads --from-model`, `qtune tune --model` and
// `qtune run --model` on models built by build_models.py.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model_files.h"
#include "qtune/search_space/workload.h"
#include "tools/cli_harness.h"

namespace {

using qtune::cli_testing::cat;
using qtune::cli_testing::CliTest;
using qtune::onnx_testing::build_model;
using qtune::onnx_testing::source_path;

using ModelCommands = CliTest;

TEST_F(ModelCommands, WorkloadsFromModelWritesTheResNet50Table) {
  build_model(cat("table ", source_path("workloads/resnet50.json"), " ", path("resnet50.onnx").string(), " --form qdq"));
  const auto o = qtune("workloads --from-model resnet50.onnx -o net.json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("24 distinct layers of resnet50.onnx written to net.json"), std::string::npos) << o.err;
  const auto table = qtune::load_workload_file(path("net.json").string());
  const auto expected = qtune::load_workload_file(source_path("workloads/resnet50.json"));
  EXPECT_EQ(table.network, "resnet50");
  ASSERT_EQ(table.layers.size(), expected.layers.size());
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    EXPECT_EQ(table.layers[i].name, expected.layers[i].name);
    EXPECT_EQ(table.layers[i].workload.key(), expected.layers[i].workload.key()) << expected.layers[i].name;
    EXPECT_EQ(table.layers[i].count, expected.layers[i].count) << expected.layers[i].name;
  }
}

TEST_F(ModelCommands, ABadModelWritesNothing) {
  build_model(cat("bad scale-zero ", path("bad.onnx").string()));
  const auto o = qtune("workloads --from-model bad.onnx -o net.json");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("node 'conv1' (QLinearConv), field 'w_scale': scale [3] = 0"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(path("net.json")));
  EXPECT_FALSE(std::filesystem::exists(path("net.json.tmp")));
}

TEST_F(ModelCommands, SkippedNodesAreListedAndDynamicShapesNeedInputShape) {
  build_model(cat("cnn ", path("cnn.onnx").string(), " --form qdq --dynamic-batch"));
  auto o = qtune("workloads --from-model cnn.onnx");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("input 'image' has a dynamic shape [N,3,32,32]: give it with --input-shape image=N,C,H,W"),
            std::string::npos)
      << o.err;
  o = qtune("workloads --from-model cnn.onnx --input-shape image=2,3,32,32");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("pool (GlobalAveragePool): not a convolution or matrix product"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("flatten (Flatten)"), std::string::npos) << o.err;
  const auto table = qtune::parse_workload_json(nlohmann::json::parse(o.out), "stdout");
  ASSERT_EQ(table.layers.size(), 5u);
  EXPECT_EQ(table.layers[0].workload.batch, 2);
  EXPECT_EQ(qtune("workloads --from-model cnn.onnx --input-shape image=2,3").exit_code, 1);
  EXPECT_EQ(qtune("workloads --from-model cnn.onnx --input-shape image=2,x,32,32").exit_code, 2);
}

TEST_F(ModelCommands, TuneAndRunTheModelsOwnLayers) {
  build_model(cat("cnn ", path("cnn.onnx").string(), " --form qoperator"));
  auto o = qtune("tune --db t.db --model cnn.onnx --trials 2 --confirm 0 --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = qtune("run --model cnn.onnx --db t.db --no-store --repetitions 1 --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream lines(o.out);
  std::vector<std::string> layers;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["type"] != "layer") continue;
    layers.push_back(j["layer"].get<std::string>());
    EXPECT_EQ(j["source"], "tuned") << line;
  }
  EXPECT_EQ(layers, (std::vector<std::string>{"stem", "dw", "project", "expand", "fc"}));
  EXPECT_EQ(qtune("run --model cnn.onnx --workloads x.json").exit_code, 2);
  EXPECT_EQ(qtune("run --model cnn.onnx --rounding tflite").exit_code, 2);
}

TEST_F(ModelCommands, RunComparesWithOnnxRuntimeLayerByLayer) {
  build_model(cat("cnn ", path("cnn.onnx").string(), " --form qdq"));
  const auto o = qtune("run --model cnn.onnx --repetitions 3 --onnxruntime --json",
                       cat("QTUNE_NODE_MODULES='", QTUNE_NODE_MODULES, "'"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream lines(o.out);
  nlohmann::json ort;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["type"] == "onnxruntime") ort = j;
  }
  ASSERT_FALSE(ort.is_null()) << o.out;
  EXPECT_EQ(ort["threads"], 1);
  // Every layer has its onnxruntime kernel time (QDQ: the fused node, or the DQ / Conv / Q nodes).
  for (const char* layer : {"stem", "dw", "project", "expand", "fc"}) {
    ASSERT_TRUE(ort["layers"].contains(layer)) << layer << ": " << ort.dump();
    EXPECT_GT(ort["layers"][layer]["onnxruntime_ns"].get<double>(), 0) << layer;
  }
  EXPECT_GT(ort["model_ns"].get<double>(), ort["layers_onnxruntime_ns"].get<double>());
  EXPECT_EQ(qtune("run --workloads x.json --onnxruntime").exit_code, 2);
}

}  // namespace
