// Each network table in workloads/ carries the quantization scheme of the deployed model it names
// (workloads/README.md, "Quantization schemes"), so a regression in tools/gen_workloads.py, or a
// table regenerated in the wrong scheme, fails here rather than tuning the wrong kernels.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "qtune/search_space/workload.h"

namespace qtune {
namespace {

std::string workloads_dir() {
  const std::string self = __FILE__;  // .../tests/search_space/network_schemes_test.cc
  return self.substr(0, self.rfind("/tests/search_space/")) + "/workloads/";
}

struct Scheme {
  QuantKind quant;  // of a layer that reads a ReLU output
  // The layers whose activations have a non-zero zero point: in uint8 models those that do not
  // read a ReLU output (ReLU's 0 is q = 0); in int8 models every layer (ReLU's 0 is q = -128).
  std::function<bool(const std::string& name)> a_zero_point_nonzero;
};

QuantKind kind(DType a, DType out, bool azp, bool bzp, bool per_channel, RoundingMode rounding) {
  QuantKind q;
  q.a_type = a;
  q.out_type = out;
  q.a_zero_point_nonzero = azp;
  q.b_zero_point_nonzero = bzp;
  q.per_channel = per_channel;
  q.rounding = rounding;
  return q;
}

const std::map<std::string, Scheme>& documented_schemes() {
  // TFLite uint8: u8 in and out, per-tensor u8 weights held as s8 with a shifted (non-zero) zero point.
  const QuantKind tflite_uint8 = kind(DType::u8, DType::u8, false, true, false, RoundingMode::tflite);
  // TFLite full-integer int8: s8 in and out, symmetric per-channel s8 weights.
  const QuantKind tflite_int8 = kind(DType::s8, DType::s8, true, false, true, RoundingMode::tflite);
  // PyTorch fbgemm: u8 in and out, symmetric per-channel s8 weights, float requantization.
  const QuantKind fbgemm = kind(DType::u8, DType::u8, false, false, true, RoundingMode::fp32);
  auto always = [](const std::string&) { return true; };
  static const std::map<std::string, Scheme> schemes = {
      {"inception_v3", {tflite_uint8, [](const std::string& n) { return n == "Conv2d_1a_3x3"; }}},
      {"inception_v3_int8", {tflite_int8, always}},
      // The stem reads the image; every expand and Conv_1 a projection or a residual sum.
      {"mobilenet_v2",
       {tflite_uint8,
        [](const std::string& n) {
          return n == "Conv" || n == "Conv_1" || (n.size() > 7 && n.substr(n.size() - 7) == "/expand");
        }}},
      {"mobilenet_v2_int8", {tflite_int8, always}},
      {"resnet50", {fbgemm, [](const std::string& n) { return n == "conv1"; }}},
  };
  return schemes;
}

// Whether the deployed model fuses a ReLU (ReLU6) into the layer (workloads/README.md, "Fused
// ReLUs"): MobileNetV2 all but the linear bottlenecks and the logits, InceptionV3 all but the
// logits, ResNet-50 the stem and each bottleneck's conv1 and conv2.
bool fused_relu(const std::string& network, const std::string& name) {
  const auto ends_with = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (network.rfind("resnet50", 0) == 0) return name == "conv1" || ends_with(".conv1") || ends_with(".conv2");
  return name.rfind("Logits", 0) != 0 && !ends_with("/project");
}

TEST(NetworkSchemes, EveryLayerCarriesItsNetworksScheme) {
  for (const auto& [network, scheme] : documented_schemes()) {
    SCOPED_TRACE(network);
    const WorkloadFile file = load_workload_file(workloads_dir() + network + ".json");
    EXPECT_EQ(file.network, network);
    ASSERT_FALSE(file.layers.empty());
    int nonzero_a = 0;
    for (const Layer& layer : file.layers) {
      SCOPED_TRACE(layer.name + ": " + layer.workload.key());
      QuantKind expected = scheme.quant;
      expected.a_zero_point_nonzero = scheme.a_zero_point_nonzero(layer.name);
      expected.relu = fused_relu(network, layer.name);
      nonzero_a += expected.a_zero_point_nonzero ? 1 : 0;
      EXPECT_EQ(layer.workload.quant, expected);
      EXPECT_EQ(layer.workload.threads, 1);
    }
    // The stem reads the image, whose zero point is non-zero in every scheme.
    EXPECT_GE(nonzero_a, 1);
  }
}

// The problems measured for a uint8 TFLite layer are per-tensor with one non-zero weight zero
// point and u8 output: the kind in the table is what the kernels run.
TEST(NetworkSchemes, Uint8LayersDrawPerTensorWeightsWithAZeroPoint) {
  const WorkloadFile file = load_workload_file(workloads_dir() + "mobilenet_v2.json");
  for (const Layer& layer : file.layers) {
    SCOPED_TRACE(layer.name);
    const Conv2dProblem p = layer.workload.conv2d_problem(3);
    ASSERT_EQ(p.b_zero_points.size(), 1u);
    EXPECT_NE(p.b_zero_points[0], 0);
    EXPECT_FALSE(p.requant.per_channel());
    EXPECT_EQ(p.out_type, DType::u8);
    EXPECT_EQ(p.a_zero_point != 0, layer.workload.quant.a_zero_point_nonzero);
  }
}

// A new network table must get a documented scheme here and in workloads/README.md.
TEST(NetworkSchemes, EveryTableHasADocumentedScheme) {
  std::ifstream readme_in(workloads_dir() + "README.md");
  ASSERT_TRUE(readme_in.good());
  std::stringstream readme;
  readme << readme_in.rdbuf();
  std::set<std::string> tables;
  for (const auto& entry : std::filesystem::directory_iterator(workloads_dir())) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".json" || file == "default.json") continue;
    tables.insert(entry.path().stem().string());
    EXPECT_NE(readme.str().find("`" + file + "`"), std::string::npos) << file << " is not in workloads/README.md";
  }
  std::set<std::string> documented;
  for (const auto& [network, scheme] : documented_schemes()) documented.insert(network);
  EXPECT_EQ(tables, documented);
}

}  // namespace
}  // namespace qtune
