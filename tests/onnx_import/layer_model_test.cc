// The one-node ONNX models of `qtune bench`'s onnxruntime peer (onnx_import/layer_model.h): run in
// onnxruntime, each must give exactly qtune's output for its layer (fp32 requantization), and
// read back by qtune's reader it must be the same layer.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "model_files.h"
#include "qtune/onnx_import/layer_execution.h"
#include "qtune/onnx_import/layer_model.h"
#include "qtune/onnx_import/model.h"
#include "qtune/runtime/runtime.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using namespace qtune;
using namespace qtune::onnx_import;
using qtune::onnx_testing::differences;
using qtune::onnx_testing::read_bytes;
using qtune::onnx_testing::source_path;

void write_bytes(const std::string& path, const void* data, std::size_t size) {
  std::ofstream(path, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

template <typename T>
std::vector<T> random_values(std::size_t count, std::mt19937& rng, int low, int high) {
  std::uniform_int_distribution<int> d(low, high);
  std::vector<T> out(count);
  for (auto& v : out) v = static_cast<T>(d(rng));
  return out;
}

// The model's output in onnxruntime for `input` (in ONNX's layout).
std::vector<std::uint8_t> run_in_onnxruntime(const LayerModel& model, DType input_type,
                                             const std::vector<std::uint8_t>& input, const qtune::testing::ScratchDir& dir) {
  write_bytes(dir.file("layer.onnx"), model.bytes.data(), model.bytes.size());
  write_bytes(dir.file("x.bin"), input.data(), input.size());
  std::string dims;
  for (const auto d : model.input_shape) {
    if (!dims.empty()) dims += ',';
    dims += std::to_string(d);
  }
  if (!fs::exists(fs::path(QTUNE_NODE_MODULES) / "onnxruntime-node"))
    throw std::runtime_error(std::string("onnxruntime-node is not installed in ") + QTUNE_NODE_MODULES +
                             " (scripts/setup.sh installs it)");
  std::ostringstream command;
  command << QTUNE_NODE << " " << source_path("tests/onnx_import/run_onnxruntime.js") << " " << QTUNE_NODE_MODULES
          << " " << dir.file("layer.onnx") << " " << model.input_name << " " << dir.file("x.bin") << " " << dims << " "
          << dir.file("") << " 1 " << (input_type == DType::s8 ? "int8" : "uint8");
  if (std::system(command.str().c_str()) != 0) throw std::runtime_error("onnxruntime failed: " + command.str());
  return read_bytes(dir.file("y.bin"));
}

// qtune's bytes as the model writes them: an 8-bit output of the other type than the input's is
// written in the input's type, shifted by 128.
std::vector<std::uint8_t> as_model_output(std::vector<std::uint8_t> out, DType layer_type, const LayerModel& model) {
  if (layer_type != DType::s32 && layer_type != model.output_type) {
    for (auto& v : out) v ^= 0x80;
  }
  return out;
}

// ONNX's requantization (fp32, the output type's full range) with random scales in [low, high)
// and an output zero point away from 0.
RequantParams random_fp32_requant(std::size_t channels, DType out_type, double low, double high, std::mt19937& rng) {
  std::vector<double> scales(channels);
  for (auto& s : scales) s = std::uniform_real_distribution<double>(low, high)(rng);
  const bool u8 = out_type == DType::u8;
  return RequantParams::make(RoundingMode::fp32, scales, u8 ? 120 : -5, u8 ? 0 : -128, u8 ? 255 : 127);
}

struct ConvCase {
  std::string name;
  std::int64_t in_c, hw, out_c, kernel, stride, pad, dilation, groups;
  DType a_type, out_type;
  bool per_channel;
  friend void PrintTo(const ConvCase& c, std::ostream* out) { *out << c.name; }
};

class ConvLayerModel : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvLayerModel, OnnxRuntimeGivesQtunesOutput) {
  const ConvCase& c = GetParam();
  Conv2dProblem p;
  p.batch = 1;
  p.in_h = p.in_w = c.hw;
  p.in_c = c.in_c;
  p.out_c = c.out_c;
  p.kernel_h = p.kernel_w = c.kernel;
  p.stride_h = p.stride_w = c.stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = c.pad;
  p.dilation_h = p.dilation_w = c.dilation;
  p.groups = c.groups;
  p.a_type = c.a_type;
  p.a_zero_point = c.a_type == DType::u8 ? 3 : -7;
  p.out_type = c.out_type;
  std::mt19937 rng(static_cast<unsigned>(c.in_c * 131 + c.out_c));
  if (c.out_type != DType::s32) {
    p.requant = random_fp32_requant(c.per_channel ? static_cast<std::size_t>(c.out_c) : 1, c.out_type, 0.0005, 0.004, rng);
  } else {
    p.has_bias = false;  // ConvInteger has none
  }
  p.validate();
  const auto weights = random_values<std::int8_t>(
      static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c), rng, -127, 127);
  const auto bias = random_values<std::int32_t>(static_cast<std::size_t>(p.out_c), rng, -3000, 3000);
  const auto input = random_values<std::uint8_t>(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c), rng, 0, 255);

  const LayerModel model = conv2d_layer_model(p, weights, bias);
  EXPECT_EQ(model.not_expressed, "");
  EXPECT_EQ(model.op_type, c.out_type == DType::s32 ? "ConvInteger" : "QLinearConv");
  qtune::testing::ScratchDir dir;
  const auto ort = run_in_onnxruntime(model, p.a_type, nhwc_to_nchw(input, 1, p.in_c, p.in_h, p.in_w, 1), dir);

  const runtime::Runtime rt;
  const std::size_t out_bytes = p.out_type == DType::s32 ? 4 : 1;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(p.out_h() * p.out_w() * p.out_c) * out_bytes);
  rt.prepare_conv2d(p, weights.data(), p.has_bias ? bias.data() : nullptr, 1).run(input.data(), out.data());
  EXPECT_EQ(differences(ort, nhwc_to_nchw(as_model_output(out, p.out_type, model), 1, p.out_c, p.out_h(), p.out_w(),
                                           out_bytes)),
            "");

  // Read back, it is the same layer.
  const Model read = read_model(dir.file("layer.onnx"));
  ASSERT_EQ(read.layers.size(), 1u);
  EXPECT_EQ(read.layers[0].weights, weights);
  EXPECT_EQ(read.layers[0].conv.out_h(), p.out_h());
  EXPECT_EQ(read.layers[0].conv.groups, p.groups);
}

INSTANTIATE_TEST_SUITE_P(
    Layers, ConvLayerModel,
    ::testing::Values(ConvCase{"stem_3x3s2_u8_to_s8", 3, 17, 16, 3, 2, 1, 1, 1, DType::u8, DType::s8, true},
                      ConvCase{"depthwise_u8_to_u8", 24, 9, 24, 3, 1, 1, 1, 24, DType::u8, DType::u8, true},
                      ConvCase{"pointwise_s8_to_s8", 32, 7, 20, 1, 1, 0, 1, 1, DType::s8, DType::s8, false},
                      ConvCase{"dilated_grouped_s8_to_u8", 16, 11, 8, 3, 1, 2, 2, 2, DType::s8, DType::u8, true},
                      ConvCase{"int32_output", 8, 6, 12, 3, 1, 1, 1, 1, DType::u8, DType::s32, false}),
    [](const auto& info) { return info.param.name; });

struct GemmCase {
  std::string name;
  std::int64_t m, n, k;
  DType a_type, out_type;
  bool per_column;
  friend void PrintTo(const GemmCase& c, std::ostream* out) { *out << c.name; }
};

class GemmLayerModel : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmLayerModel, OnnxRuntimeGivesQtunesOutput) {
  const GemmCase& c = GetParam();
  GemmProblem p;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.a_type = c.a_type;
  p.a_zero_point = c.a_type == DType::u8 ? 9 : 4;
  p.has_bias = false;  // QLinearMatMul / MatMulInteger have none
  p.out_type = c.out_type;
  std::mt19937 rng(static_cast<unsigned>(c.m * 7 + c.n));
  if (c.out_type != DType::s32) {
    p.requant = random_fp32_requant(c.per_column ? static_cast<std::size_t>(c.n) : 1, c.out_type, 0.0002, 0.002, rng);
  }
  p.validate();
  const auto weights = random_values<std::int8_t>(static_cast<std::size_t>(p.k * p.n), rng, -127, 127);
  const auto input = random_values<std::uint8_t>(static_cast<std::size_t>(p.m * p.k), rng, 0, 255);

  const LayerModel model = gemm_layer_model(p, weights, {});
  EXPECT_EQ(model.not_expressed, "");
  qtune::testing::ScratchDir dir;
  const auto ort = run_in_onnxruntime(model, p.a_type, input, dir);
  const runtime::Runtime rt;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(p.m * p.n) * (p.out_type == DType::s32 ? 4 : 1));
  rt.prepare_gemm(p, weights.data(), static_cast<std::size_t>(p.n), nullptr, 1)
      .run(input.data(), static_cast<std::size_t>(p.k), out.data(), static_cast<std::size_t>(p.n));
  EXPECT_EQ(differences(ort, as_model_output(out, p.out_type, model)), "");
}

INSTANTIATE_TEST_SUITE_P(Layers, GemmLayerModel,
                         ::testing::Values(GemmCase{"fc_u8_to_s8", 4, 40, 96, DType::u8, DType::s8, false},
                                           GemmCase{"per_column_u8_to_u8", 33, 24, 50, DType::u8, DType::u8, true},
                                           GemmCase{"s8_to_s8", 8, 16, 64, DType::s8, DType::s8, false},
                                           GemmCase{"int32_output", 5, 12, 30, DType::u8, DType::s32, false}),
                         [](const auto& info) { return info.param.name; });

// What the model cannot express is said, not dropped silently.
TEST(LayerModelNotes, BiasClampAndRoundingTheOperatorCannotExpress) {
  GemmProblem p;
  p.m = 2;
  p.n = 3;
  p.k = 4;
  p.requant = RequantParams::make(RoundingMode::tflite, {0.01}, 0, 0, 127);
  const LayerModel model = gemm_layer_model(p, std::vector<std::int8_t>(12, 1), {1, 2, 3});
  EXPECT_NE(model.not_expressed.find("tflite rounding"), std::string::npos) << model.not_expressed;
  EXPECT_NE(model.not_expressed.find("[0, 127]"), std::string::npos) << model.not_expressed;
  EXPECT_NE(model.not_expressed.find("without the bias (QLinearMatMul has none)"), std::string::npos)
      << model.not_expressed;
  EXPECT_THROW(gemm_layer_model(p, std::vector<std::int8_t>(11, 1), {1, 2, 3}), std::invalid_argument);
}

}  // namespace
