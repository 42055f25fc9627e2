// The whole-model commands as a user runs them (`qtune infer`, `qtune run --model --only whole`)
// and the executor's answers to bad input: an operation outside the supported set, a damaged model,
// inputs of the wrong name, type or shape. Nothing is written when anything is wrong.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "qtune/onnx_import/model.h"
#include "qtune/onnx_import/model_graph.h"
#include "tools/cli_harness.h"

namespace {

namespace fs = std::filesystem;
using qtune::cli_testing::cat;
using qtune::executor::ModelExecutor;
using qtune::executor::Tensor;

class WholeModelCommands : public qtune::cli_testing::CliTest {
 protected:
  // build_networks.py with `arguments`, the model written to `name` in the test's directory.
  std::string build(const std::string& arguments, const std::string& name) const {
    const std::string model = path(name).string();
    const std::string command = cat(QTUNE_PYTHON, " ", QTUNE_SOURCE_DIR, "/tests/executor/build_networks.py ", arguments, " ", model);
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return model;
  }
  std::string input(const std::string& name, const std::string& shape) const {
    const std::string file = path(name).string();
    const std::string command = cat(QTUNE_PYTHON, " ", QTUNE_SOURCE_DIR, "/tests/executor/build_networks.py input ", file, " --shape ", shape);
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return file;
  }
};

TEST_F(WholeModelCommands, InferWritesEveryOutputAsTheExecutorComputesIt) {
  const std::string model = build("edge u8_weights", "m.onnx");
  const std::string image = input("image.npy", "1,3,17,19");
  for (const std::string format : {"npy", "pb"}) {
    const auto o = qtune(cat("infer --model m.onnx --input input=image.npy --output out_", format, " --format ", format, " --threads 2"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("arena:"), std::string::npos) << o.out;
    const qtune::runtime::Runtime runtime;
    const ModelExecutor executor = ModelExecutor::load(model, runtime);
    const auto expected = executor.run({{"input", qtune::executor::read_tensor(image)}});
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const std::string file = path(cat("out_", format)) / qtune::executor::tensor_file_name(executor.outputs()[i].name, "." + format);
      const Tensor got = qtune::executor::read_tensor(file);
      EXPECT_EQ(got.shape, expected[i].shape) << file;
      EXPECT_EQ(got.bytes, expected[i].bytes) << file;
    }
  }
}

TEST_F(WholeModelCommands, InferRefusesBadInputsAndWritesNothing) {
  build("edge u8_weights", "m.onnx");
  input("image.npy", "1,3,17,19");
  input("wrong_shape.npy", "1,3,17,18");
  qtune::cli_testing::write_file(path("broken.npy"), "\x93NUMPY garbage");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--input picture=image.npy", "picture"},
      {"--input input=wrong_shape.npy", "wrong_shape.npy"},
      {"--input input=broken.npy", "broken.npy"},
      {"--input input=missing.npy", "missing.npy"},
      {"", "input"},
  };
  for (const auto& [arguments, named] : cases) {
    const auto o = qtune(cat("infer --model m.onnx ", arguments, " --output out"));
    EXPECT_NE(o.exit_code, 0) << arguments;
    EXPECT_NE(o.err.find(named), std::string::npos) << arguments << ": " << o.err;
    EXPECT_FALSE(fs::exists(path("out"))) << arguments;
  }
}

TEST_F(WholeModelCommands, RunTimesTheWholeModelBesideOnnxRuntime) {
  build("network mobilenet_v2 --form qoperator --image 64", "m.onnx");
  const auto o = qtune("run --model m.onnx --only whole --rounds 2 --onnxruntime --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("\"type\":\"whole_model\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"onnxruntime_1t_ns\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"onnxruntime_2t_ns\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"op_type\":\"QLinearConv\""), std::string::npos) << o.out;
  // The share of the arithmetic limit, where a register-only dot-product loop runs here.
  const auto peaks = qtune::gemm_peak_loops();
  if (std::any_of(peaks.begin(), peaks.end(), [](const auto& p) { return qtune::cpu_features().usable(p.isa); })) {
    EXPECT_NE(o.out.find("\"share_of_limit\":0."), std::string::npos) << o.out;
  }
  // Without tuning records or --fusion every operation runs by itself.
  EXPECT_EQ(o.out.find("\"unfused_ns\""), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("QLinearConv+QLinearAdd"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"fused_steps\":0"), std::string::npos) << o.out;
  const auto text = qtune("run --model m.onnx --only whole --rounds 2");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("whole model (qtune's executor"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("operations other than conv/matmul"), std::string::npos) << text.out;
  // MobileNetV2's blocks end in a pointwise convolution and an Add: fused, and timed unfused beside.
  const auto fused = qtune("run --model m.onnx --only whole --rounds 2 --fusion");
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_NE(fused.out.find("unfused (--no-fusion;"), std::string::npos) << fused.out;
  EXPECT_NE(fused.out.find("QLinearConv+QLinearAdd"), std::string::npos) << fused.out;
  const auto fused_json = qtune("run --model m.onnx --only whole --rounds 2 --fusion --json");
  ASSERT_EQ(fused_json.exit_code, 0) << fused_json.err;
  EXPECT_NE(fused_json.out.find("\"unfused_ns\""), std::string::npos) << fused_json.out;
  EXPECT_EQ(fused_json.out.find("\"fused_steps\":0"), std::string::npos) << fused_json.out;
  // The rounds time a whole model: a network of workloads has none to time.
  const auto no_model = qtune("run --workloads w.json --rounds 2");
  EXPECT_NE(no_model.exit_code, 0);
  EXPECT_NE(no_model.err.find("--rounds"), std::string::npos) << no_model.err;
  const auto zero = qtune("run --model m.onnx --only whole --rounds 0");
  EXPECT_NE(zero.exit_code, 0);
  EXPECT_NE(zero.err.find("rounds"), std::string::npos) << zero.err;
}

// `qtune tune --model` tunes the model's blocks after its layers; `qtune run --model --db` runs each
// block as its records say, beside the model without fusion and without the records.
TEST_F(WholeModelCommands, TuneMeasuresTheBlocksAndRunUsesTheirRecords) {
  build("network mobilenet_v2 --form qoperator --image 64", "m.onnx");
  const auto tune = qtune("tune --model m.onnx --db t.db --trials 1 --confirm 0 --quiet");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_NE(tune.out.find("blocks of layers ("), std::string::npos) << tune.out;
  EXPECT_NE(tune.out.find("expanded_conv_1/expand+expanded_conv_1/depthwise+expanded_conv_1/project: unfused "),
            std::string::npos) << tune.out;
  const auto query = qtune("query --db t.db --op inverted_residual");
  ASSERT_EQ(query.exit_code, 0) << query.err;
  EXPECT_NE(query.out.find("inverted_residual:conv2d:"), std::string::npos) << query.out;
  // Resumed, the same database's blocks are listed again unless --no-blocks leaves them out.
  const auto layers_only = qtune("tune --model m.onnx --db t.db --trials 1 --confirm 0 --quiet --no-blocks");
  ASSERT_EQ(layers_only.exit_code, 0) << layers_only.err;
  EXPECT_EQ(layers_only.out.find("blocks of layers"), std::string::npos) << layers_only.out;
  const auto run = qtune("run --model m.onnx --db t.db --only whole --rounds 2 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"untuned_ns\""), std::string::npos) << run.out;
  const auto off = qtune("run --model m.onnx --db t.db --only whole --rounds 2 --json --no-fusion");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("\"fused_steps\":0"), std::string::npos) << off.out;
  const auto both = qtune("run --model m.onnx --only whole --fusion --no-fusion");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("either --fusion or --no-fusion"), std::string::npos) << both.err;
}

TEST_F(WholeModelCommands, InferWithFusionWritesTheSameOutputs) {
  build("network mobilenet_v2 --form qoperator --image 64", "m.onnx");
  input("image.npy", "1,3,64,64");
  const auto fused = qtune("infer --model m.onnx --input input=image.npy --output fused --threads 2 --fusion");
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_EQ(fused.out.find(" 0 of them fused"), std::string::npos) << fused.out;
  const auto unfused = qtune("infer --model m.onnx --input input=image.npy --output unfused --threads 2");
  ASSERT_EQ(unfused.exit_code, 0) << unfused.err;
  EXPECT_NE(unfused.out.find(" 0 of them fused"), std::string::npos) << unfused.out;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(path("fused"))) {
    EXPECT_EQ(qtune::cli_testing::slurp(entry.path().string()),
              qtune::cli_testing::slurp((path("unfused") / entry.path().filename()).string()))
        << entry.path();
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST_F(WholeModelCommands, AnOperationOutsideTheSetIsNamedBeforeAnythingRuns) {
  const std::string model = build("edge u8_weights", "m.onnx");
  const std::string script = cat(
      "import onnx, sys; from onnx import helper; m = onnx.load(sys.argv[1]); g = m.graph; "
      "g.node.append(helper.make_node('LeakyRelu', ['input'], ['leaky'], name='the_leaky_one')); "
      "g.output.append(helper.make_tensor_value_info('leaky', onnx.TensorProto.FLOAT, None)); onnx.save(m, sys.argv[2])");
  ASSERT_EQ(std::system(cat(QTUNE_PYTHON, " -c \"", script, "\" ", model, " ", path("leaky.onnx").string()).c_str()), 0);
  const qtune::runtime::Runtime runtime;
  try {
    ModelExecutor::load(path("leaky.onnx").string(), runtime);
    ADD_FAILURE() << "a model with LeakyRelu was loaded";
  } catch (const qtune::onnx_import::ModelError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the_leaky_one"), std::string::npos) << message;
    EXPECT_NE(message.find("LeakyRelu"), std::string::npos) << message;
    EXPECT_NE(message.find("supported: "), std::string::npos) << message;
    EXPECT_NE(message.find("com.microsoft.QLinearAdd"), std::string::npos) << message;
  }
  const auto o = qtune("run --model leaky.onnx --only whole");
  EXPECT_EQ(o.exit_code, 1) << o.err;  // a model that cannot be read, as for every model command
  EXPECT_NE(o.err.find("the_leaky_one"), std::string::npos) << o.err;
}

TEST_F(WholeModelCommands, DamagedModelsAreErrorsNamingTheFile) {
  const std::string model = build("edge views", "m.onnx");
  const std::string bytes = qtune::cli_testing::slurp(model);
  const qtune::runtime::Runtime runtime;
  for (const std::size_t keep : {std::size_t{0}, std::size_t{10}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 7}) {
    const std::string damaged = path(cat("cut", keep, ".onnx")).string();
    qtune::cli_testing::write_file(damaged, bytes.substr(0, keep));
    try {
      ModelExecutor::load(damaged, runtime);
      ADD_FAILURE() << "a model cut to " << keep << " bytes was loaded";
    } catch (const qtune::onnx_import::ModelError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(damaged, 0), 0u) << e.what();
    }
  }
}

// tests/fuzz/regressions/onnx_model: models that once crashed the reader under the fuzzer
// (scripts/fuzz.sh replays them there too). Each now reads as a whole graph or is a ModelError
// naming the file, as the fuzzer requires; those below must take the named outcome: a Reshape whose
// target shape's product left int64 is refused, a Clip whose bounds lie past every integer type
// (their quotient by the scale was cast to int64) is a model.
TEST_F(WholeModelCommands, FuzzFindingsAreModelsOrModelErrorsNamingTheFile) {
  const std::map<std::string, bool> refused{{"reshape-shape-product-overflow", true},
                                            {"clip-bounds-beyond-int64", false}};
  int found = 0, named = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cat(QTUNE_SOURCE_DIR, "/tests/fuzz/regressions/onnx_model"))) {
    const std::string name = entry.path().filename().string();
    const std::string model = path(cat(name, ".onnx")).string();
    std::filesystem::copy_file(entry.path(), model, std::filesystem::copy_options::overwrite_existing);
    ++found;
    const auto expected = refused.find(name);
    named += expected != refused.end();
    try {
      const auto graph = qtune::onnx_import::read_model_graph(model);
      if (expected != refused.end() && expected->second) ADD_FAILURE() << entry.path() << " was read as a model";
      for (const auto& op : graph.ops) EXPECT_EQ(graph.tensors.count(op.output), 1u) << name << ": " << op.name;
    } catch (const qtune::onnx_import::ModelError& e) {
      if (expected != refused.end() && !expected->second)
        ADD_FAILURE() << entry.path() << " was refused: " << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(model, 0), 0u) << e.what();
    }
  }
  EXPECT_EQ(named, static_cast<int>(refused.size()));
}

TEST_F(WholeModelCommands, RunRefusesInputsOfTheWrongNameTypeOrShape) {
  const std::string model = build("edge u8_weights", "m.onnx");
  const qtune::runtime::Runtime runtime;
  const ModelExecutor executor = ModelExecutor::load(model, runtime);
  const auto& info = executor.inputs().at(0);
  const Tensor good{info.type, info.shape, std::vector<std::uint8_t>(info.bytes())};
  EXPECT_NO_THROW(executor.run({{info.name, good}}));
  Tensor shape = good;
  shape.shape.back() += 1;
  Tensor type = good;
  type.type = qtune::executor::ElementType::u8;
  const std::vector<std::pair<std::map<std::string, Tensor>, std::string>> cases = {
      {{}, "'input' is not given"},
      {{{info.name, shape}}, "has shape [1,3,17,20], the model takes [1,3,17,19]"},
      {{{info.name, type}}, "is uint8, the model takes float"},
      {{{info.name, good}, {"other", good}}, "'other' is not an input of the model"},
  };
  for (const auto& [inputs, message] : cases) {
    try {
      executor.run(inputs);
      ADD_FAILURE() << message;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST_F(WholeModelCommands, TheLayerReaderFindsEveryLayerAfterTheResidualAdds) {
  // ONNX's shape inference stops at com.microsoft.QLinearAdd; qtune's own goes through it.
  const std::string model = build("network mobilenet_v2 --form qoperator --image 64", "m.onnx");
  const auto read = qtune::onnx_import::read_model(model);
  EXPECT_EQ(read.layers.size(), 53u);  // 52 convolutions and the classifier
}

}  // namespace
