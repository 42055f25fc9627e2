// qtune-ort: runs an ONNX model in onnxruntime's own engine, optionally with a custom-op library
// registered, on NumPy or TensorProto inputs, and writes every graph output as NAME.npy. It is how
// the tests and the docs run a model in onnxruntime from C++ (docs/onnxruntime-inside.md):
//
//   qtune-ort MODEL.onnx --input NAME=FILE.npy ... --output DIR [--library PATH] [--threads N]
//             [--onnxruntime LIBONNXRUNTIME.so]
//
// onnxruntime's shared library is loaded at run time (by default the one scripts/setup.sh
// installs with onnxruntime-node), so the program builds against the C API headers alone. The
// session runs as tests/executor/run_onnxruntime.js runs it: intra-op threads N, one inter-op
// thread, sequential execution, every graph optimization.
#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/executor/npy_format.h"
#include "qtune/executor/tensor_files.h"

#if defined(__SANITIZE_ADDRESS__)
// onnxruntime's library (not built with the sanitizers) leaves a few bytes allocated at exit;
// LeakSanitizer would fail the sanitized build's runs of this program for them. Leaks of qtune's
// own code are still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so\n"; }
#endif

namespace {

using qtune::executor::ElementType;
using qtune::executor::Tensor;

struct Options {
  std::string model, output, library, onnxruntime = QTUNE_ONNXRUNTIME_LIBRARY;
  std::vector<std::pair<std::string, std::string>> inputs;  // graph input name, file
  int threads = 1;
};

constexpr const char* kUsage =
    "usage: qtune-ort MODEL.onnx --input NAME=FILE ... --output DIR [--library PATH] [--threads N] "
    "[--onnxruntime LIBONNXRUNTIME]";

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--input") {
      const std::string& v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw std::invalid_argument("--input " + v + ": expected NAME=FILE");
      o.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--output") {
      o.output = value();
    } else if (a == "--library") {
      o.library = value();
    } else if (a == "--onnxruntime") {
      o.onnxruntime = value();
    } else if (a == "--threads") {
      const std::string& v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 1024) throw std::invalid_argument("--threads " + v + ": expected 1 to 1024");
      o.threads = static_cast<int>(n);
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument("unknown option " + a);
    } else if (o.model.empty()) {
      o.model = a;
    } else {
      throw std::invalid_argument("a second model " + a + " (one model per run)");
    }
  }
  if (o.model.empty()) throw std::invalid_argument("no model given");
  if (o.output.empty()) throw std::invalid_argument("no --output directory given");
  return o;
}

// onnxruntime's API table from its shared library, at the headers' API version.
const OrtApi* load_onnxruntime(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw std::runtime_error("cannot load onnxruntime from " + path + ": " + dlerror());
  using GetApiBase = const OrtApiBase* (*)();
  const auto get_api_base = reinterpret_cast<GetApiBase>(dlsym(library, "OrtGetApiBase"));
  if (get_api_base == nullptr) throw std::runtime_error(path + " exports no OrtGetApiBase: not onnxruntime");
  const OrtApi* api = get_api_base()->GetApi(ORT_API_VERSION);
  if (api == nullptr)
    throw std::runtime_error(path + " (onnxruntime " + get_api_base()->GetVersionString() + ") does not serve API version " +
                             std::to_string(ORT_API_VERSION));
  return api;
}

ONNXTensorElementDataType onnx_type(ElementType t) {
  switch (t) {
    case ElementType::u8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
    case ElementType::s8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    case ElementType::s32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    case ElementType::f32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  }
  throw std::invalid_argument("unknown element type");
}

ElementType element_type(ONNXTensorElementDataType t, const std::string& output) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return ElementType::u8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return ElementType::s8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return ElementType::s32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return ElementType::f32;
    default: throw std::runtime_error("output " + output + ": element type " + std::to_string(t) + " is not one of uint8, int8, int32, float32");
  }
}

int run(const Options& o) {
  Ort::InitApi(load_onnxruntime(o.onnxruntime));
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "qtune-ort");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(o.threads);
  options.SetInterOpNumThreads(1);
  options.SetExecutionMode(ORT_SEQUENTIAL);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  if (!o.library.empty()) options.RegisterCustomOpsLibrary(o.library.c_str());
  Ort::Session session(env, o.model.c_str(), options);
  Ort::AllocatorWithDefaultOptions allocator;

  std::set<std::string> graph_inputs;
  for (std::size_t i = 0; i < session.GetInputCount(); ++i)
    graph_inputs.insert(session.GetInputNameAllocated(i, allocator).get());
  // Every input file is read before anything runs, and every graph input must be given.
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, file] : o.inputs) {
    if (!graph_inputs.count(name)) throw std::invalid_argument("--input " + name + ": the model has no input of that name");
    if (!tensors.emplace(name, qtune::executor::read_tensor(file)).second)
      throw std::invalid_argument("--input " + name + " given twice");
  }
  for (const std::string& name : graph_inputs)
    if (!tensors.count(name)) throw std::invalid_argument("graph input " + name + " has no --input");

  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<const char*> input_names;
  std::vector<Ort::Value> input_values;
  for (auto& [name, tensor] : tensors) {
    input_names.push_back(name.c_str());
    input_values.push_back(Ort::Value::CreateTensor(memory, tensor.bytes.data(), tensor.bytes.size(), tensor.shape.data(),
                                                    tensor.shape.size(), onnx_type(tensor.type)));
  }
  std::vector<std::string> output_names;
  for (std::size_t i = 0; i < session.GetOutputCount(); ++i)
    output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
  std::vector<const char*> output_pointers;
  for (const auto& name : output_names) output_pointers.push_back(name.c_str());
  std::vector<Ort::Value> outputs = session.Run(Ort::RunOptions{nullptr}, input_names.data(), input_values.data(),
                                                input_values.size(), output_pointers.data(), output_pointers.size());

  std::filesystem::create_directories(o.output);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto info = outputs[i].GetTensorTypeAndShapeInfo();
    Tensor t;
    t.type = element_type(info.GetElementType(), output_names[i]);
    t.shape = info.GetShape();
    const auto* data = static_cast<const std::uint8_t*>(outputs[i].GetTensorRawData());
    t.bytes.assign(data, data + qtune::executor::tensor_data_bytes(t.type, t.shape));
    qtune::executor::write_tensor(
        (std::filesystem::path(o.output) / qtune::executor::tensor_file_name(output_names[i], ".npy")).string(), t);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::invalid_argument& e) {
    std::cerr << "qtune-ort: " << e.what() << "\n" << kUsage << "\n";
  } catch (const Ort::Exception& e) {
    std::cerr << "qtune-ort: onnxruntime: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "qtune-ort: " << e.what() << "\n";
  }
  return 1;
}
