// `qtune infer`: runs a whole quantized ONNX model (qtune/executor/model_executor.h) on input
// tensors from files (.npy or ONNX .pb) and writes each graph output to a file of its own, every
// convolution and matrix product in the configuration the runtime picks from --db / --log. Every
// input is read and checked against the model before anything runs, so that nothing is written
// unless the outputs exist. In a build without ONNX the command exists and says why it cannot run,
// as the other model options do (model_cli.h).
#include <string>

#include "cli.h"
#include "model_cli.h"

#ifdef QTUNE_HAVE_ONNX
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"
#include "qtune/records/log_format.h"
#include "qtune/runtime/runtime.h"
#include "records_cli.h"
#endif

namespace {

#ifdef QTUNE_HAVE_ONNX

using qtune::cli::UsageError;
using qtune::executor::ElementType;
using qtune::executor::Tensor;
using qtune::executor::TensorInfo;
using qtune::runtime::Runtime;

std::string describe(ElementType type, const std::vector<std::int64_t>& shape) {
  std::string out = qtune::onnx_import::element_type_name(type) + " [";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::string describe_inputs(const std::vector<TensorInfo>& inputs) {
  std::string out;
  for (const TensorInfo& input : inputs) out += (out.empty() ? "" : ", ") + input.name + " (" + describe(input.type, input.shape) + ")";
  return out;
}

// --input NAME=FILE, each name once (split at the first '=', as --input-shape is).
std::map<std::string, std::string> input_paths(const qtune::cli::Args& args) {
  std::map<std::string, std::string> paths;
  for (const std::string& text : args.values("input")) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
      throw UsageError("option --input: expected NAME=FILE, got '" + text + "'");
    const std::string name = text.substr(0, equals);
    if (!paths.emplace(name, text.substr(equals + 1)).second) throw UsageError("--input gives '" + name + "' twice");
  }
  return paths;
}

// Every graph input from its file, each checked against the model's type and shape; UsageError
// naming the input (and the file) for an unknown or missing name, an unreadable file or a mismatch.
std::map<std::string, Tensor> read_inputs(const std::map<std::string, std::string>& paths,
                                          const std::vector<TensorInfo>& expected) {
  for (const auto& [name, path] : paths) {
    bool known = false;
    for (const TensorInfo& input : expected) known = known || input.name == name;
    if (!known) {
      throw UsageError("--input " + name + "=" + path + ": the model has no input '" + name + "'; its inputs: " +
                       describe_inputs(expected));
    }
  }
  std::map<std::string, Tensor> tensors;
  for (const TensorInfo& input : expected) {
    const auto given = paths.find(input.name);
    if (given == paths.end()) {
      throw UsageError("the model's input '" + input.name + "' (" + describe(input.type, input.shape) +
                       ") is not given: --input " + input.name + "=FILE; its inputs: " + describe_inputs(expected));
    }
    const std::string& path = given->second;
    Tensor tensor;
    try {
      tensor = qtune::executor::read_tensor(path);
    } catch (const qtune::executor::TensorFileError& e) {
      throw UsageError("--input " + input.name + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      throw UsageError("--input " + input.name + ": " + e.what());
    }
    if (tensor.type != input.type || tensor.shape != input.shape) {
      throw UsageError(path + ": the model's input '" + input.name + "' is " + describe(input.type, input.shape) +
                       ", the file holds " + describe(tensor.type, tensor.shape));
    }
    tensors.emplace(input.name, std::move(tensor));
  }
  return tensors;
}

// One file name per output; two names that map to the same file are refused before anything runs.
std::vector<std::string> output_file_names(const std::vector<TensorInfo>& outputs, const std::string& extension) {
  std::map<std::string, std::string> owner;  // file name -> output
  std::vector<std::string> names;
  for (const TensorInfo& output : outputs) {
    names.push_back(qtune::executor::tensor_file_name(output.name, extension));
    if (const auto [it, fresh] = owner.emplace(names.back(), output.name); !fresh) {
      throw std::runtime_error("the outputs '" + it->second + "' and '" + output.name + "' would both be written to " +
                               names.back());
    }
  }
  return names;
}

void print_layer_choices(const qtune::executor::ModelExecutor& executor) {
  std::size_t tuned = 0, nearest = 0, fallback = 0, fused = 0;
  for (const qtune::executor::StepInfo& step : executor.steps()) {
    if (step.selection.starts_with("tuned")) ++tuned;
    if (step.selection.starts_with("nearest")) ++nearest;
    if (step.selection.starts_with("default")) ++fallback;
    if (step.fused) ++fused;
  }
  std::cout << "arena: " << executor.arena().arena_bytes << " bytes; conv/matmul layers: " << tuned << " tuned, "
            << nearest << " nearest, " << fallback << " default; " << fused << " of them fused with the Add after them\n";
}

int run_infer(const qtune::cli::Args& args) {
  const std::string model = args.required("model");
  const std::string directory = args.required("output");
  const std::string format = args.value_or("format", "npy");
  if (format != "npy" && format != "pb") throw UsageError("option --format: expected npy or pb, got '" + format + "'");
  const std::string extension = "." + format;
  const std::map<std::string, std::string> paths = input_paths(args);
  if (paths.empty()) throw UsageError("give each model input as --input NAME=FILE (.npy or .pb)");

  qtune::executor::ExecutorOptions options;
  options.threads = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  options.import.input_shapes = qtune::cli::input_shapes(args);
  options.fusion = qtune::cli::fusion_from_args(args);
  const Runtime runtime = qtune::cli::load_runtime(args);
  const auto executor = qtune::executor::ModelExecutor::load(model, runtime, options);
  const std::vector<std::string> file_names = output_file_names(executor.outputs(), extension);
  const std::map<std::string, Tensor> inputs = read_inputs(paths, executor.inputs());

  const std::vector<Tensor> outputs = executor.run(inputs);
  std::error_code created;
  std::filesystem::create_directories(directory, created);
  if (created) throw std::runtime_error(directory + ": cannot create the output directory: " + created.message());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const TensorInfo& info = executor.outputs()[i];
    const std::string path = (std::filesystem::path(directory) / file_names[i]).string();
    qtune::executor::write_tensor(path, outputs[i], info.name);
    std::cout << "output " << info.name << ": " << describe(outputs[i].type, outputs[i].shape) << " -> " << path << "\n";
  }
  print_layer_choices(executor);
  return 0;
}

#else

int run_infer(const qtune::cli::Args&) {
  throw qtune::cli::UsageError("this qtune was built without ONNX support (libonnx-dev and protobuf were not found "
                               "when it was configured; scripts/setup.sh installs them), so it cannot run models");
}

#endif

}  // namespace

QTUNE_COMMAND("infer", "run a whole quantized ONNX model on input files and write its outputs (.npy or .pb)",
              "qtune infer --model MODEL.onnx --input NAME=FILE [--input NAME=FILE ...] --output DIR "
              "[--format npy|pb] [--db FILE | --log FILE] [--target current|KEY] [--threads T] [--input-shape NAME=DIMS] [--fusion | --no-fusion]",
              {{"model", true, "FILE  the quantized ONNX model (QOperator or QDQ form)"},
               {"input", true, "NAME=FILE  a model input from a .npy or ONNX TensorProto .pb file (one per input)", true},
               {"output", true, "DIR  where each graph output is written, named after it (created if needed)"},
               {"format", true, "npy|pb  the output files' format (default npy)"},
               {"db", true, "FILE  tuning database to take the conv/matmul configurations from"},
               {"log", true, "FILE  best-config log (qtune export) to take them from instead"},
               {"target", true, "KEY  use the entries of this target ('current', the default, = this machine)"},
               {"threads", true, "T  thread budget of every operation (default 1)"},
               qtune::cli::input_shape_option(),
               qtune::cli::fusion_option(), qtune::cli::no_fusion_option()},
              run_infer);
