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

TEST_F(ModelCommands, RunComparesWithOnnxRuntimeLayerByLayerAtOneAndTwoThreads) {
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
  // Every layer has its onnxruntime kernel time (QDQ: the fused node, or the DQ / Conv / Q nodes)
  // at 1 and 2 threads, with its quartiles and the verdict against the tuned time.
  for (const char* layer : {"stem", "dw", "project", "expand", "fc"}) {
    ASSERT_TRUE(ort["layers"].contains(layer)) << layer << ": " << ort.dump();
    for (const char* threads : {"1t", "2t"}) {
      const std::string key = cat("onnxruntime_", threads);
      EXPECT_GT(ort["layers"][layer][key + "_ns"].get<double>(), 0) << layer << " " << threads;
      EXPECT_EQ(ort["layers"][layer][key + "_quartiles_ns"].size(), 2u) << layer;
      EXPECT_TRUE(ort["layers"][layer].contains(key + "_verdict")) << layer;
    }
  }
  for (const char* key : {"onnxruntime_1t", "onnxruntime_2t"})
    EXPECT_GT(ort[key]["model_ns"].get<double>(), ort[key]["layers_ns"].get<double>()) << key;
  EXPECT_EQ(qtune("run --workloads x.json --onnxruntime").exit_code, 2);
}

TEST_F(ModelCommands, RunTablePrintsOnnxRuntimeColumns) {
  build_model(cat("cnn ", path("cnn.onnx").string(), " --form qoperator"));
  const auto o = qtune("run --model cnn.onnx --repetitions 3 --threads 2 --onnxruntime",
                       cat("QTUNE_NODE_MODULES='", QTUNE_NODE_MODULES, "'"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("ort 1t    ort 2t          ort1/tun          ort2/tun"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("layers at 2 onnxruntime thread(s): tuned"), std::string::npos) << o.out;
}

TEST_F(ModelCommands, WithoutOnnxRuntimeRunSaysHowToInstallIt) {
  build_model(cat("cnn ", path("cnn.onnx").string(), " --form qoperator"));
  const auto o = qtune("run --model cnn.onnx --repetitions 1 --onnxruntime", "QTUNE_NODE_MODULES=/nonexistent");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("onnxruntime-node is not installed in /nonexistent (scripts/setup.sh installs"),
            std::string::npos)
      << o.err;
  // No Node.js: said before any table line is printed.
  const auto without_node = qtune("run --model cnn.onnx --repetitions 1 --onnxruntime",
                                  cat("QTUNE_NODE_MODULES='", QTUNE_NODE_MODULES, "' PATH=/nonexistent"));
  EXPECT_EQ(without_node.exit_code, 1) << without_node.err;
  EXPECT_NE(without_node.err.find("Node.js (node) is not on PATH (scripts/setup.sh installs Node.js"), std::string::npos)
      << without_node.err;
  EXPECT_EQ(without_node.out, "");
}

// `qtune bench` times the layer in onnxruntime as a one-node model beside qtune's variants and
// oneDNN, at each thread count, and prints the ratio column.
TEST_F(ModelCommands, BenchTimesTheLayerInOnnxRuntime) {
  const std::string modules = cat("QTUNE_NODE_MODULES='", QTUNE_NODE_MODULES, "'");
  auto o = qtune("bench --op conv2d --input 1,8,8,16 --out-c 16 --kernel 3x3 --stride 2 --pad 1 --threads 1,2 --isa scalar "
                 "--min-time 0.001 --repetitions 2 --json",
                 modules);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<int> ort_threads;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["impl"] != "onnxruntime") continue;
    ort_threads.push_back(j["threads"].get<int>());
    EXPECT_GT(j["median_ns"].get<double>(), 0) << line;
    EXPECT_EQ(j["variant"].get<std::string>().rfind("QLinearConv kernel, onnxruntime ", 0), 0u) << line;
    EXPECT_EQ(j["stride_h"], 2) << line;
  }
  EXPECT_EQ(ort_threads, (std::vector<int>{1, 2})) << o.out;

  o = qtune("bench --m 16 --n 32 --k 64 --isa scalar --min-time 0.001 --repetitions 1", modules);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("vs onnxruntime"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("onnxruntime (QLinearMatMul kernel, onnxruntime "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("without the bias (QLinearMatMul has none)"), std::string::npos) << o.out;

  // Without onnxruntime the bench still runs, and says why the peer is missing.
  o = qtune("bench --m 16 --n 32 --k 64 --isa scalar --min-time 0.001 --repetitions 1", "QTUNE_NODE_MODULES=/nonexistent");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("onnxruntime peer unavailable: onnxruntime-node is not installed in /nonexistent "
                       "(scripts/setup.sh installs"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out.find("vs onnxruntime"), std::string::npos) << o.out;
}

}  // namespace
