// libqtune_onnxruntime.so with `qtune export-onnx`: a model rewritten to qtune's nodes and run by
// onnxruntime with the library gives the original model's outputs in onnxruntime byte for byte,
// for the three networks in both forms and the edge-case models, at 1 and 2 intra-op threads
// (qtune-ort --compare runs both in one process and fails when an output differs). Bad nodes:
// an unusable configuration key falls back to the default with a warning naming the node;
// attributes that disagree with the tensors fail the session's creation naming the node.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnxruntime_reference.h"
#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using qtune::testing::build;
using qtune::testing::dims;
using qtune::testing::NetworkCase;
using qtune::testing::ScratchDir;

#if defined(QTUNE_ORT_RUNNER) && defined(QTUNE_ORT_LIBRARY)
// Runs `command`; its exit status, its standard output and error in `output`.
int run(const std::string& command, const ScratchDir& dir, std::string* output = nullptr) {
  const std::string log = dir.file("command.log");
  const int status = std::system((command + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  if (output) output->assign(std::istreambuf_iterator<char>(in), {});
  return status;
}

std::string cli(const std::string& arguments) { return std::string(QTUNE_CLI_LAUNCHER) + " " + QTUNE_CLI + " " + arguments; }

// The model's inputs as random .npy files: " --input NAME=FILE" for each.
std::string make_inputs(const std::string& model, const ScratchDir& dir) {
  const qtune::runtime::Runtime runtime;
  const auto executor = qtune::executor::ModelExecutor::load(model, runtime, {});
  std::string arguments;
  int seed = 7;
  for (const auto& info : executor.inputs()) {
    const std::string file = dir.file(qtune::executor::tensor_file_name(info.name, ".npy"));
    build("input " + file + " --shape " + dims(info.shape) + " --seed " + std::to_string(seed++));
    arguments += " --input " + info.name + "=" + file;
  }
  return arguments;
}

// Rewrites the model for `threads` and compares it, with the library, against the original.
void check_rewrite(const std::string& build_arguments, const std::string& name, bool every_layer_moves = true) {
  ScratchDir dir;
  const std::string model = dir.file(name + ".onnx");
  build(build_arguments + " " + model);
  if (::testing::Test::HasFatalFailure()) return;
  const std::string inputs = make_inputs(model, dir);
  if (::testing::Test::HasFatalFailure()) return;
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    const std::string rewritten = dir.file(name + ".qtune" + std::to_string(threads) + ".onnx");
    std::string output;
    ASSERT_EQ(run(cli("export-onnx --model " + model + " -o " + rewritten + " --threads " + std::to_string(threads)), dir, &output), 0)
        << output;
    EXPECT_NE(output.find("moved to ai.qtune"), std::string::npos) << output;
    if (every_layer_moves) {
      EXPECT_NE(output.find(", 0 kept;"), std::string::npos) << output;
    }
    ASSERT_EQ(run(std::string(QTUNE_ORT_RUNNER) + " " + model + inputs + " --compare " + rewritten + " --library " +
                      QTUNE_ORT_LIBRARY + " --rounds 1 --threads " + std::to_string(threads),
                  dir, &output),
              0)
        << output;
    EXPECT_NE(output.find("outputs equal"), std::string::npos) << output;
    EXPECT_EQ(output.find("warning"), std::string::npos) << output;
  }
}

class RewrittenNetwork : public ::testing::TestWithParam<NetworkCase> {};

TEST_P(RewrittenNetwork, OutputsEqualTheOriginalInOnnxRuntime) {
  const NetworkCase& c = GetParam();
  check_rewrite("network " + c.network + " --form " + c.form + " --intermediates --image " + std::to_string(c.image), c.name());
}

INSTANTIATE_TEST_SUITE_P(Networks, RewrittenNetwork,
                         ::testing::Values(NetworkCase{"mobilenet_v2", "qoperator", 96}, NetworkCase{"mobilenet_v2", "qdq", 96},
                                           NetworkCase{"resnet50", "qoperator", 64}, NetworkCase{"resnet50", "qdq", 64},
                                           NetworkCase{"inception_v3", "qoperator", 107}, NetworkCase{"inception_v3", "qdq", 107}),
                         [](const auto& info) { return info.param.name(); });

class RewrittenEdge : public ::testing::TestWithParam<std::string> {};

// Layers with int32 or float outputs stay onnxruntime's (listed as kept).
TEST_P(RewrittenEdge, OutputsEqualTheOriginalInOnnxRuntime) { check_rewrite("edge " + GetParam(), GetParam(), false); }

INSTANTIATE_TEST_SUITE_P(Edges, RewrittenEdge,
                         ::testing::Values("u8_weights", "s8_activations", "ceil_pool", "qlinear_softmax", "concat_scales", "views",
                                           "float_bias", "float_logits", "clip"),
                         [](const auto& info) { return info.param; });

// One node of a rewritten MobileNetV2 edited: `edit` the arguments of build_networks.py edit (for a shell).
struct BadNode {
  std::string edit;
  bool runs;           // the session is created (the default configuration runs) and outputs equal
  std::string named;   // what the message says
};

TEST(RewrittenModel, BadNodesFallBackOrFailNamingTheNode) {
  ScratchDir dir;
  const std::string model = dir.file("model.onnx"), rewritten = dir.file("rewritten.onnx");
  build("network mobilenet_v2 --form qoperator --image 32 " + model);
  if (::testing::Test::HasFatalFailure()) return;
  const std::string inputs = make_inputs(model, dir);
  std::string output;
  ASSERT_EQ(run(cli("export-onnx --model " + model + " -o " + rewritten + " --list"), dir, &output), 0) << output;
  const BadNode cases[] = {
      {"--string 'config=isa=avx512vnni;tile=banana'", true, "is not usable"},
      {"--string 'config=algo=im2col;isa=neon;tile=8x8;kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1'", true, "warning"},
      {"--string 'workload=conv2d:n=1'", false, "attribute workload"},
      {"--ints w_zero_points=1,2,3", false, "do not make a valid layer"},
      {"--int x_zero_point=300", false, "do not make a valid layer"},
      {"--ints w_zero_points=5", false, "do not match attribute workload"},
  };
  for (const BadNode& c : cases) {
    SCOPED_TRACE(c.edit);
    const std::string edited = dir.file("edited.onnx");
    build("edit " + rewritten + " " + edited + " --op QConv " + c.edit);
    if (::testing::Test::HasFatalFailure()) return;
    const int status = run(std::string(QTUNE_ORT_RUNNER) + " " + model + inputs + " --compare " + edited + " --library " +
                               QTUNE_ORT_LIBRARY + " --rounds 1",
                           dir, &output);
    if (c.runs) {
      EXPECT_EQ(status, 0) << output;
      EXPECT_NE(output.find("outputs equal"), std::string::npos) << output;
    } else {
      EXPECT_NE(status, 0) << output;
    }
    EXPECT_NE(output.find(c.named), std::string::npos) << output;
    EXPECT_NE(output.find("qtune/"), std::string::npos) << "the node is not named:\n" << output;
  }
}

TEST(RewrittenModel, ExportRefusesBadModelsAndWritesNothing) {
  ScratchDir dir;
  const std::string out = dir.file("out.onnx");
  std::ofstream(dir.file("broken.onnx")) << "not a model";
  for (const std::string& arguments : {"--model " + dir.file("missing.onnx") + " -o " + out,
                                       "--model " + dir.file("broken.onnx") + " -o " + out,
                                       "--model " + dir.file("broken.onnx"),
                                       "--model " + dir.file("broken.onnx") + " -o " + out + " --threads 0"}) {
    std::string output;
    EXPECT_NE(run(cli("export-onnx " + arguments), dir, &output), 0) << arguments;
    EXPECT_FALSE(output.empty()) << arguments;
    EXPECT_FALSE(fs::exists(out)) << arguments;
  }
}
#else
TEST(RewrittenModel, LibraryIsBuilt) {
  GTEST_SKIP() << "libqtune_onnxruntime.so or qtune-ort is not built: scripts/setup.sh fetches onnxruntime's C API headers "
                  "(x86-64 hosts)";
}
#endif

}  // namespace
