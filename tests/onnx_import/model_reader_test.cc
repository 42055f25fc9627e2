// Reading quantized ONNX models: the layer table of a model built from workloads/resnet50.json
// (QOperator and QDQ forms) reproduces that table; what is skipped is listed; bad models are
// refused with an error naming the node and the field.
#include <algorithm>
#include <fstream>
#include <random>
#include <typeinfo>

#include <gtest/gtest.h>

#include "model_files.h"
#include "qtune/onnx_import/layer_execution.h"
#include "qtune/onnx_import/model.h"
#include "qtune/onnx_import/model_workloads.h"
#include "scratch_dir.h"

namespace {

using namespace qtune::onnx_import;
using qtune::onnx_testing::build_model;
using qtune::onnx_testing::source_path;

class ResNet50Table : public ::testing::TestWithParam<std::string> {};

TEST_P(ResNet50Table, ModelBuiltFromTheTableReproducesIt) {
  qtune::testing::ScratchDir dir;
  const std::string model_path = dir.file("resnet50.onnx");
  build_model("table " + source_path("workloads/resnet50.json") + " " + model_path + " --form " + GetParam());
  const Model model = read_model(model_path);
  EXPECT_TRUE(model.skipped.empty());
  EXPECT_EQ(model.layers.size(), 54u);  // 53 convolutions and fc
  const qtune::WorkloadFile table = model_workloads(model, "resnet50");
  const qtune::WorkloadFile expected = qtune::load_workload_file(source_path("workloads/resnet50.json"));
  ASSERT_EQ(table.layers.size(), expected.layers.size());
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    SCOPED_TRACE(expected.layers[i].name);
    EXPECT_EQ(table.layers[i].name, expected.layers[i].name);
    EXPECT_EQ(table.layers[i].workload.key(), expected.layers[i].workload.key());
    EXPECT_EQ(table.layers[i].count, expected.layers[i].count);
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, ResNet50Table, ::testing::Values("qoperator", "qdq"));

class SmallCnn : public ::testing::TestWithParam<std::string> {};

TEST_P(SmallCnn, LayersCarryTheModelsWeightsAndQuantization) {
  qtune::testing::ScratchDir dir;
  const std::string path = dir.file("cnn.onnx");
  build_model("cnn " + path + " --form " + GetParam());
  const Model model = read_model(path);
  ASSERT_EQ(model.layers.size(), 5u);
  const ModelLayer& stem = model.layers[0];
  EXPECT_EQ(stem.name, "stem");
  EXPECT_EQ(stem.workload.describe(), "conv 32x32x3 3x3/2 ->16");
  EXPECT_EQ(stem.conv.pad_top, 1);
  EXPECT_EQ(stem.conv.requant.channels(), 16u);  // per-channel weight scales
  EXPECT_EQ(stem.conv.requant.mode, qtune::RoundingMode::fp32);
  EXPECT_EQ(stem.weights.size(), 16u * 3 * 3 * 3);
  EXPECT_EQ(stem.bias.size(), 16u);
  EXPECT_EQ(stem.output_shape, (std::vector<std::int64_t>{1, 16, 16, 16}));
  const ModelLayer& dw = model.layers[1];
  EXPECT_TRUE(dw.conv.depthwise());
  EXPECT_EQ(model.layers[4].name, "fc");
  EXPECT_EQ(model.layers[4].op, qtune::OpKind::gemm);
  EXPECT_EQ(model.layers[4].gemm.n, 10);
  EXPECT_EQ(model.layers[4].gemm.k, 48);
  EXPECT_EQ(model.layers[4].op_type, GetParam() == "qdq" ? "Gemm" : "QLinearMatMul");
  EXPECT_EQ(model.layers[4].bias.size(), GetParam() == "qdq" ? 10u : 0u);
  if (GetParam() == "qdq") {
    EXPECT_EQ(stem.conv.requant.qmin, 0);   // Relu: quantized 0 is the zero point 0
    EXPECT_LT(dw.conv.requant.qmax, 255);   // Clip(0, 6): 6 / y_scale
    EXPECT_GT(dw.conv.requant.qmax, 100);
  }
  // The pooling between the convolutions and the FC is listed, with its op type.
  std::vector<std::string> skipped;
  for (const auto& node : model.skipped) skipped.push_back(node.name + ":" + node.op_type);
  EXPECT_NE(std::find(skipped.begin(), skipped.end(), "pool:GlobalAveragePool"), skipped.end());
  EXPECT_NE(std::find(skipped.begin(), skipped.end(), "flatten:Flatten"), skipped.end());
}

INSTANTIATE_TEST_SUITE_P(Forms, SmallCnn, ::testing::Values("qoperator", "qdq"));

TEST(OnnxModel, DynamicInputNeedsItsShape) {
  qtune::testing::ScratchDir dir;
  const std::string path = dir.file("cnn.onnx");
  build_model("cnn " + path + " --form qdq --dynamic-batch");
  try {
    read_model(path);
    FAIL() << "a dynamic batch was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'image' has a dynamic shape [N,3,32,32]"), std::string::npos) << e.what();
  }
  ImportOptions options;
  options.input_shapes["image"] = {4, 3, 32, 32};
  const Model model = read_model(path, options);
  EXPECT_EQ(model.layers[0].conv.batch, 4);
  EXPECT_EQ(model.layers[4].gemm.m, 4);
  options.input_shapes["picture"] = {1, 3, 32, 32};
  EXPECT_THROW(read_model(path, options), ModelError);
}

struct BadModel {
  std::string kind, message;
  friend void PrintTo(const BadModel& model, std::ostream* out) { *out << model.kind; }
};

class BadModels : public ::testing::TestWithParam<BadModel> {};

TEST_P(BadModels, AreRefusedNamingNodeAndField) {
  qtune::testing::ScratchDir dir;
  const std::string path = dir.file("bad.onnx");
  build_model("bad " + GetParam().kind + " " + path);
  try {
    read_model(path);
    FAIL() << GetParam().kind << " was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, BadModels,
    ::testing::Values(BadModel{"opset", "field 'opset_import': opset 9 of the default domain is not supported"},
                      BadModel{"weights-size", "node 'conv1' (QLinearConv), field 'w': int8 tensor 'conv1_w' of dims "
                                               "[8,4,3,3] needs 288 values, it holds 283 bytes"},
                      BadModel{"scale-zero", "node 'conv1' (QLinearConv), field 'w_scale': scale [3] = 0"},
                      BadModel{"scale-nan", "node 'conv1' (QLinearConv), field 'x_scale': scale [0] = nan"},
                      BadModel{"zero-point-type", "node 'conv1' (QLinearConv), field 'x_zero_point': zero point "
                                                  "tensor 'conv1_x_zp' is int8, the tensor it belongs to is uint8"}),
    [](const auto& info) {
      std::string name = info.param.kind;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(OnnxModel, NotAProtobufOrTruncatedIsRefused) {
  qtune::testing::ScratchDir dir;
  const std::string text = dir.file("text.onnx");
  std::ofstream(text) << "{\"format\": \"qtune-workloads/1\"}\n";
  EXPECT_THROW(
      {
        try {
          read_model(text);
        } catch (const ModelError& e) {
          EXPECT_NE(std::string(e.what()).find("not an ONNX model"), std::string::npos) << e.what();
          throw;
        }
      },
      ModelError);
  const std::string full = dir.file("cnn.onnx"), cut = dir.file("cut.onnx");
  build_model("cnn " + full + " --form qoperator");
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::size_t size : {bytes.size() / 2, bytes.size() - 7, std::size_t{10}}) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc) << bytes.substr(0, size);
    EXPECT_THROW(read_model(cut), ModelError) << "cut at " << size << " of " << bytes.size();
  }
}

TEST(OnnxModel, InputShapeTextIsChecked) {
  EXPECT_EQ(parse_input_shape("x=1,3,224,224"),
            (std::pair<std::string, std::vector<std::int64_t>>{"x", {1, 3, 224, 224}}));
  for (const char* bad : {"x", "=1,2", "x=", "x=1,,2", "x=1,-2", "x=1,a"}) EXPECT_THROW(parse_input_shape(bad), std::invalid_argument) << bad;
}

}  // namespace

namespace {

// Damaged models (bytes flipped, cut) are refused with a ModelError or read; never anything else.
TEST(OnnxModel, DamagedModelsAreRefusedCleanly) {
  qtune::testing::ScratchDir dir;
  const std::string full = dir.file("cnn.onnx"), damaged = dir.file("damaged.onnx");
  build_model("cnn " + full + " --form qdq");
  std::ifstream in(full, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::mt19937 rng(7);
  int refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string copy = bytes;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips)
      copy[rng() % copy.size()] = static_cast<char>(rng());
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << copy;
    try {
      const qtune::onnx_import::Model model = qtune::onnx_import::read_model(damaged);
      // What was read is consistent: every layer runs on an input of its shape.
      const qtune::runtime::Runtime runtime;
      for (const auto& layer : model.layers) {
        std::size_t size = 1;
        for (const std::int64_t d : layer.input_shape) size *= static_cast<std::size_t>(d);
        EXPECT_NO_THROW(qtune::onnx_import::run_layer(runtime, layer, std::vector<std::uint8_t>(size, 1)))
            << "trial " << trial << " layer " << layer.name;
      }
    } catch (const qtune::onnx_import::ModelError&) {
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "trial " << trial << ": " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
