// qtune-ort (tools/qtune_ort): a model run through onnxruntime's C API gives onnxruntime-node's
// outputs byte for byte (the same library underneath), at 1 and 2 intra-op threads, and bad
// arguments fail naming what is wrong with nothing written.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "onnxruntime_reference.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using qtune::testing::build;
using qtune::testing::run_onnxruntime;
using qtune::testing::ScratchDir;

#ifdef QTUNE_ORT_RUNNER
// Runs qtune-ort with `arguments`; its exit status, its error output in `errors`.
int run_runner(const std::string& arguments, const ScratchDir& dir, std::string* errors = nullptr) {
  const std::string log = dir.file("runner.log");
  const std::string command = std::string(QTUNE_ORT_RUNNER) + " " + arguments + " 2> " + log;
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  if (errors) errors->assign(std::istreambuf_iterator<char>(in), {});
  return status;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every output file of onnxruntime-node has a twin of equal bytes from qtune-ort, and no more.
void expect_same_outputs(const std::string& expected_dir, const std::string& got_dir) {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(expected_dir)) {
    const fs::path twin = fs::path(got_dir) / entry.path().filename();
    ASSERT_TRUE(fs::exists(twin)) << twin << " was not written";
    EXPECT_EQ(bytes_of(entry.path()), bytes_of(twin)) << entry.path().filename();
    ++files;
  }
  EXPECT_GT(files, 0u);
  EXPECT_EQ(files, static_cast<std::size_t>(std::distance(fs::directory_iterator(got_dir), fs::directory_iterator())));
}

void check_model(const std::string& build_arguments, const std::string& input_shape) {
  ScratchDir dir;
  const std::string model = dir.file("model.onnx"), input = dir.file("input.npy");
  build(build_arguments + " " + model);
  build("input " + input + " --shape " + input_shape + " --seed 5");
  if (::testing::Test::HasFatalFailure()) return;
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    const std::string expected = dir.file("ort" + std::to_string(threads)), got = dir.file("runner" + std::to_string(threads));
    fs::create_directories(expected);
    run_onnxruntime(model, {{"input", input}}, expected, threads);
    if (::testing::Test::HasFatalFailure()) return;
    std::string errors;
    ASSERT_EQ(run_runner(model + " --input input=" + input + " --output " + got + " --threads " + std::to_string(threads), dir,
                         &errors),
              0)
        << errors;
    expect_same_outputs(expected, got);
  }
}

TEST(OnnxRuntimeRunner, MobileNetV2OutputsEqualOnnxRuntimeNodes) {
  check_model("network mobilenet_v2 --form qoperator --image 64 --intermediates", "1,3,64,64");
}

TEST(OnnxRuntimeRunner, QdqResNet50OutputsEqualOnnxRuntimeNodes) {
  check_model("network resnet50 --form qdq --image 64", "1,3,64,64");
}

TEST(OnnxRuntimeRunner, BadArgumentsFailNamingTheProblemAndWriteNothing) {
  ScratchDir dir;
  const std::string model = dir.file("model.onnx"), input = dir.file("input.npy"), out = dir.file("out");
  build("network mobilenet_v2 " + model + " --form qoperator --image 32");
  build("input " + input + " --shape 1,3,32,32 --seed 5");
  if (::testing::Test::HasFatalFailure()) return;
  const std::string wrong_shape = dir.file("wrong.npy");
  build("input " + wrong_shape + " --shape 1,3,16,16 --seed 5");
  if (::testing::Test::HasFatalFailure()) return;
  std::ofstream(dir.file("broken.npy")) << "not a numpy file";
  struct Case {
    std::string arguments, named;
  };
  const Case cases[] = {
      {model + " --input image=" + input + " --output " + out, "no input of that name"},
      {model + " --output " + out, "graph input input has no --input"},
      {model + " --input input=" + dir.file("broken.npy") + " --output " + out, "broken.npy"},
      {model + " --input input=" + wrong_shape + " --output " + out, "onnxruntime"},
      {dir.file("missing.onnx") + " --input input=" + input + " --output " + out, "missing.onnx"},
      {model + " --input input=" + input + " --output " + out + " --threads 0", "--threads 0"},
      {model + " --input input=" + input + " --output " + out + " --library " + dir.file("nothing.so"), "nothing.so"},
      {model + " --input input=" + input + " --output " + out + " --onnxruntime " + input, "cannot load onnxruntime"},
      {model + " --input input=" + input, "no --output"},
  };
  for (const Case& c : cases) {
    std::string errors;
    EXPECT_NE(run_runner(c.arguments, dir, &errors), 0) << c.arguments;
    EXPECT_NE(errors.find(c.named), std::string::npos) << c.arguments << "\n" << errors;
    EXPECT_FALSE(fs::exists(out)) << c.arguments << " wrote " << out;
  }
}
#else
TEST(OnnxRuntimeRunner, IsBuilt) {
  GTEST_SKIP() << "qtune-ort is not built: scripts/setup.sh fetches onnxruntime's C API headers (x86-64 hosts)";
}
#endif

}  // namespace
