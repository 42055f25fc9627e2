// Every layer of the network tables in workloads/ passes the reference check: the real channel
// counts, kernel shapes, strides, dilations, padding and groups, with the image cut down spatially
// (keeping how the last window meets the bottom/right padding) so that the suite stays fast.
// Layers run in the quantization their table gives them (the scheme of the deployed model), a
// few in other kinds, with the default configuration, and every other one also with the other
// GEMM-based algorithm, so both im2col and indirect see every kind of layer.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "conv2d_test_support.h"

namespace qtune {
namespace {

std::string workloads_dir() {
  std::string here = __FILE__;  // .../tests/kernels/conv2d_workloads_test.cc
  for (int i = 0; i < 3; ++i) here = here.substr(0, here.find_last_of('/'));
  return here + "/workloads/";
}

// A smaller extent with the same padding and the same (in + pads - span) mod stride, so that the
// windows meet the padding exactly as in the full-size layer; at most `windows` outputs.
std::int64_t shrink(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b, std::int64_t kernel, std::int64_t stride,
                    std::int64_t dilation, std::int64_t windows) {
  const std::int64_t span = (kernel - 1) * dilation + 1;
  const std::int64_t residue = (in + pad_a + pad_b - span) % stride;
  const std::int64_t smallest = std::max<std::int64_t>(span - pad_a - pad_b, 1);
  std::int64_t small = smallest + (((residue - (smallest + pad_a + pad_b - span)) % stride) + stride) % stride;
  small += (windows - 1) * stride;
  return std::min(in, small);
}

struct Layer {
  std::string network, name;
  Conv2dProblem problem;
  testing::ConvQuant quant;  // the table's, for this layer
  bool a_zero_point_nonzero = true;
};

DType dtype_field(const nlohmann::json& j) {
  const auto t = parse_dtype(j.get<std::string>());
  EXPECT_TRUE(t.has_value()) << j;
  return t.value_or(DType::u8);
}

// The quantization fields of `obj` (a table's defaults or a layer's overrides) applied to `layer`.
void apply_quant(const nlohmann::json& obj, Layer& layer) {
  if (obj.contains("a_type")) layer.quant.a_type = dtype_field(obj.at("a_type"));
  if (obj.contains("out_type")) layer.quant.out_type = dtype_field(obj.at("out_type"));
  if (obj.contains("per_channel")) layer.quant.per_channel = obj.at("per_channel").get<bool>();
  if (obj.contains("b_zero_point_nonzero")) layer.quant.b_zero_point_nonzero = obj.at("b_zero_point_nonzero").get<bool>();
  if (obj.contains("a_zero_point_nonzero")) layer.a_zero_point_nonzero = obj.at("a_zero_point_nonzero").get<bool>();
  if (obj.contains("rounding")) {
    const auto mode = parse_rounding_mode(obj.at("rounding").get<std::string>());
    EXPECT_TRUE(mode.has_value()) << obj.at("rounding");
    layer.quant.rounding = mode.value_or(RoundingMode::tflite);
  }
}

std::vector<Layer> load_layers(const std::string& network) {
  std::ifstream in(workloads_dir() + network + ".json");
  EXPECT_TRUE(in.good()) << "cannot open " << workloads_dir() + network + ".json";
  if (!in.good()) return {};
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("format"), "qtune-workloads/1");
  std::vector<Layer> layers;
  for (const auto& l : doc.at("layers")) {
    Layer layer{network, l.at("name").get<std::string>(), {}, {}, true};
    apply_quant(doc.value("defaults", nlohmann::json::object()), layer);
    apply_quant(l, layer);
    Conv2dProblem& p = layer.problem;
    if (l.at("op") == "gemm") {
      // A fully-connected layer is the 1x1 convolution of a 1x1 image with k channels.
      p.batch = l.at("m").get<std::int64_t>();
      p.in_h = p.in_w = 1;
      p.in_c = l.at("k").get<std::int64_t>();
      p.out_c = l.at("n").get<std::int64_t>();
    } else {
      const auto input = l.at("input").get<std::vector<std::int64_t>>();
      const auto kernel = l.at("kernel").get<std::vector<std::int64_t>>();
      const auto stride = l.value("stride", std::vector<std::int64_t>{1, 1});
      const auto dilation = l.value("dilation", std::vector<std::int64_t>{1, 1});
      const auto pad = l.value("pad", std::vector<std::int64_t>{0, 0, 0, 0});
      p.batch = input[0];
      p.in_c = input[3];
      p.out_c = l.at("out_c").get<std::int64_t>();
      p.kernel_h = kernel[0];
      p.kernel_w = kernel[1];
      p.stride_h = stride[0];
      p.stride_w = stride[1];
      p.dilation_h = dilation[0];
      p.dilation_w = dilation[1];
      p.pad_top = pad[0];
      p.pad_bottom = pad[1];
      p.pad_left = pad[2];
      p.pad_right = pad[3];
      p.groups = l.value("groups", std::int64_t{1});
      p.in_h = shrink(input[1], p.pad_top, p.pad_bottom, p.kernel_h, p.stride_h, p.dilation_h, 3);
      p.in_w = shrink(input[2], p.pad_left, p.pad_right, p.kernel_w, p.stride_w, p.dilation_w, 3);
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

class Conv2dWorkloadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(Conv2dWorkloadTest, EveryLayerMatchesReference) {
  const std::vector<Layer> layers = load_layers(GetParam());
  ASSERT_FALSE(layers.empty());
  // The table's quantization, and on every fifth layer one of two other kinds.
  const testing::ConvQuant other_kinds[] = {{DType::s8, DType::u8, false, true, true, RoundingMode::fp32},
                                            {DType::u8, DType::s32, true, true, true, RoundingMode::tflite}};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    Conv2dProblem p = layers[i].problem;
    const bool table_kind = i % 5 != 4;
    testing::quantize_problem(p, table_kind ? layers[i].quant : other_kinds[i / 5 % 2], static_cast<std::uint32_t>(i));
    // Layers reading a ReLU output in a uint8 model: activations with a zero zero point.
    if (table_kind && !layers[i].a_zero_point_nonzero) p.a_zero_point = 0;
    SCOPED_TRACE(layers[i].network + " " + layers[i].name + ": " + testing::describe(p));
    const testing::ConvData d = testing::make_data(p, static_cast<std::uint32_t>(i));
    std::vector<std::uint8_t> expected(testing::output_bytes(p));
    conv2d_reference(p, d.input.data(), d.weights.data(), p.has_bias ? d.bias.data() : nullptr, expected.data());
    const Conv2dConfig c = conv2d_default_config(p);
    ASSERT_EQ(conv2d_check_config(p, c), "");
    testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(i), &expected);
    if (c.algo != ConvAlgo::depthwise && i % 2 == 1) {
      Conv2dConfig other = c;
      other.algo = c.algo == ConvAlgo::im2col ? ConvAlgo::indirect : ConvAlgo::im2col;
      other.gemm.pack_a = true;
      if (conv2d_check_config(p, other).empty()) {
        testing::expect_matches_reference(p, other, static_cast<std::uint32_t>(i), &expected);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, Conv2dWorkloadTest, ::testing::Values("inception_v3", "inception_v3_int8", "mobilenet_v2",
                                                                     "mobilenet_v2_int8", "resnet50"));

// The tables hold the layers the networks really have (spot checks of well-known layers).
TEST(Conv2dWorkloadTables, KnownLayers) {
  auto find = [](const std::vector<Layer>& layers, const std::string& name) -> const Conv2dProblem* {
    for (const auto& l : layers) {
      if (l.name == name) return &l.problem;
    }
    return nullptr;
  };
  std::ifstream in(workloads_dir() + "inception_v3.json");
  const nlohmann::json inception = nlohmann::json::parse(in);
  int convs = 0;
  for (const auto& l : inception.at("layers")) {
    convs += l.at("count").get<int>();
    if (l.at("name") == "Conv2d_4a_3x3") {
      EXPECT_EQ(l.at("input"), nlohmann::json::parse("[1, 73, 73, 80]"));
      EXPECT_EQ(l.at("out_c"), 192);
      EXPECT_EQ(l.at("pad"), nlohmann::json::parse("[0, 0, 0, 0]"));
    }
  }
  EXPECT_EQ(convs, 95);  // 94 convolutions + the logits
  const auto mobilenet = load_layers("mobilenet_v2");
  const Conv2dProblem* dw = find(mobilenet, "expanded_conv_1/depthwise");
  ASSERT_NE(dw, nullptr);
  EXPECT_TRUE(dw->depthwise());
  EXPECT_EQ(dw->pad_top, 0);
  EXPECT_EQ(dw->pad_bottom, 1);
  const auto resnet = load_layers("resnet50");
  const Conv2dProblem* fc = find(resnet, "fc");
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->in_c, 2048);
  EXPECT_EQ(fc->out_c, 1000);
}

}  // namespace
}  // namespace qtune
