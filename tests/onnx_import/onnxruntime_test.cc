// The small quantized CNNs of build_models.py (3x3/2 conv, depthwise, 1x1 project and expand, FC;
// QOperator and QDQ forms; random weights, per-channel scales) run in onnxruntime and through
// qtune's runtime: every layer, fed onnxruntime's own input to it, must give onnxruntime's output.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "model_files.h"
#include "qtune/onnx_import/layer_execution.h"
#include "qtune/onnx_import/model.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using namespace qtune::onnx_import;
using qtune::onnx_testing::build_model;
using qtune::onnx_testing::differences;
using qtune::onnx_testing::read_bytes;
using qtune::onnx_testing::source_path;

// Runs the model in onnxruntime on `image`; the graph outputs land in `dir`/<name>.bin.
void run_onnxruntime(const std::string& model, const std::vector<std::uint8_t>& image, const std::string& dir,
                     int threads) {
  const std::string input = dir + "/image.bin";
  std::ofstream(input, std::ios::binary).write(reinterpret_cast<const char*>(image.data()),
                                               static_cast<std::streamsize>(image.size()));
  ASSERT_TRUE(fs::exists(fs::path(QTUNE_NODE_MODULES) / "onnxruntime-node"))
      << "onnxruntime-node is not installed in " << QTUNE_NODE_MODULES << " (scripts/setup.sh installs it)";
  std::ostringstream command;
  command << QTUNE_NODE << " " << source_path("tests/onnx_import/run_onnxruntime.js") << " " << QTUNE_NODE_MODULES
          << " " << model << " image " << input << " 1,3,32,32 " << dir << " " << threads;
  ASSERT_EQ(std::system(command.str().c_str()), 0) << command.str();
}

struct Case {
  std::string form;
  int seed;
  bool power_of_two = false;  // scales 2^-k: exact ties, where half to even differs from other roundings
  std::string clip = "";      // the depthwise layer's Clip bounds "LO,HI" (QDQ), and the case's name for them
  std::string clip_name = "";
  std::string name() const {
    return form + "_seed" + std::to_string(seed) + (power_of_two ? "_ties" : "") +
           (clip.empty() ? "" : "_" + clip_name);
  }
  friend void PrintTo(const Case& c, std::ostream* out) { *out << c.name(); }
};

class AgainstOnnxRuntime : public ::testing::TestWithParam<Case> {};

TEST_P(AgainstOnnxRuntime, EveryLayerEqualsOnnxRuntimesOutput) {
  qtune::testing::ScratchDir dir;
  const std::string model_path = dir.file("cnn.onnx");
  build_model("cnn " + model_path + " --form " + GetParam().form + " --seed " + std::to_string(GetParam().seed) +
              (GetParam().power_of_two ? " --power-of-two" : "") +
              (GetParam().clip.empty() ? "" : " --clip=" + GetParam().clip));
  std::mt19937 rng(static_cast<unsigned>(GetParam().seed));
  std::vector<std::uint8_t> image(3 * 32 * 32);
  for (auto& v : image) v = static_cast<std::uint8_t>(rng());
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " onnxruntime thread(s)");
    const std::string out = dir.file("ort" + std::to_string(threads));
    fs::create_directory(out);
    run_onnxruntime(model_path, image, out, threads);
    const Model model = read_model(model_path);
    ASSERT_EQ(model.layers.size(), 5u);
    const qtune::runtime::Runtime runtime;
    for (const ModelLayer& layer : model.layers) {
      SCOPED_TRACE(layer.name);
      const auto input = layer.input == "image" ? image : read_bytes(out + "/" + layer.input + ".bin");
      const auto expected = read_bytes(out + "/" + layer.output + ".bin");
      const auto got = run_layer(runtime, layer, input, threads);
      EXPECT_EQ(differences(expected, got), "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SmallCnns, AgainstOnnxRuntime,
                         ::testing::Values(Case{"qoperator", 1}, Case{"qoperator", 2}, Case{"qdq", 1}, Case{"qdq", 2},
                                           Case{"qoperator", 3, true}, Case{"qdq", 3, true},
                                           // Clip bounds past the output type's range (their quotient by the
                                           // scale overflows every integer type), on both sides and on one,
                                           // and crossed bounds (min > max: every output is max).
                                           Case{"qdq", 4, false, "-3e38,3e38", "clip_beyond_both_ends"},
                                           Case{"qdq", 4, false, "1e31,2e31", "clip_above_the_range"},
                                           Case{"qdq", 4, false, "-2e31,-1e31", "clip_below_the_range"},
                                           Case{"qdq", 4, false, "6,1", "clip_crossed"}),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
