// qtune-ort: runs an ONNX model in onnxruntime's own engine, optionally with a custom-op library
// registered, on NumPy or TensorProto inputs, and writes every graph output as NAME.npy. It is how
// the tests and the docs run a model in onnxruntime from C++ (docs/onnxruntime-inside.md):
//
//   qtune-ort MODEL.onnx --input NAME=FILE.npy ... --output DIR [--library PATH] [--threads N]
//             [--onnxruntime LIBONNXRUNTIME.so]
//   qtune-ort MODEL.onnx --input NAME=FILE.npy ... --compare REWRITTEN.onnx --library PATH
//             [--rounds R] [--threads N] [--output DIR]
//
// --optimized-model writes the graph onnxruntime runs after its optimizations (which Transposes
// its transpose optimizer left), --profile its per-node times.
//
// The second form is the benchmark of docs/onnxruntime-inside.md: MODEL in onnxruntime alone and
// REWRITTEN (`qtune export-onnx`) with the library, two sessions of one process, timed in
// interleaved rounds (the order alternating), and their outputs compared byte for byte.
//
// onnxruntime's shared library is loaded at run time (by default the one scripts/setup.sh
// installs with onnxruntime-node), so the program builds against the C API headers alone. The
// session runs as tests/executor/run_onnxruntime.js runs it: intra-op threads N, one inter-op
// thread, sequential execution, every graph optimization.
#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
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
  std::string compare;  // the rewritten model timed against `model`
  int rounds = 20;
  std::string optimized;  // where onnxruntime writes the (last) session's graph after its optimizations
  std::string profile;    // onnxruntime's profile of that session: its per-node times (JSON), file name prefix
};

constexpr const char* kUsage =
    "usage: qtune-ort MODEL.onnx --input NAME=FILE ... --output DIR [--library PATH] [--threads N] "
    "[--onnxruntime LIBONNXRUNTIME]\n"
    "       qtune-ort MODEL.onnx --input NAME=FILE ... --compare REWRITTEN.onnx --library PATH [--rounds R] [--threads N] "
    "[--output DIR]\n"
    "       either form: [--optimized-model FILE] writes the graph onnxruntime runs (of REWRITTEN when comparing),\n"
    "       [--profile PREFIX] onnxruntime's profile of that session (PREFIX_<date>.json, per-node times)";

int count_option(const std::string& option, const std::string& v, long low, long high) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < low || n > high)
    throw std::invalid_argument(option + " " + v + ": expected " + std::to_string(low) + " to " + std::to_string(high));
  return static_cast<int>(n);
}

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
      o.threads = count_option(a, value(), 1, 1024);
    } else if (a == "--compare") {
      o.compare = value();
    } else if (a == "--profile") {
      o.profile = value();
    } else if (a == "--optimized-model") {
      o.optimized = value();
    } else if (a == "--rounds") {
      o.rounds = count_option(a, value(), 1, 100000);
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument("unknown option " + a);
    } else if (o.model.empty()) {
      o.model = a;
    } else {
      throw std::invalid_argument("a second model " + a + " (one model per run)");
    }
  }
  if (o.model.empty()) throw std::invalid_argument("no model given");
  if (o.compare.empty() && o.output.empty()) throw std::invalid_argument("no --output directory given");
  if (!o.compare.empty() && o.library.empty()) throw std::invalid_argument("--compare needs the --library to run it with");
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

// threads = 0: the session runs on the environment's global thread pools.
Ort::Session make_session(const Ort::Env& env, const std::string& model, const std::string& library, int threads,
                          const std::string& optimized = "", const std::string& profile = "") {
  Ort::SessionOptions options;
  if (!optimized.empty()) options.SetOptimizedModelFilePath(optimized.c_str());
  if (!profile.empty()) options.EnableProfiling(profile.c_str());
  if (threads == 0) {
    options.DisablePerSessionThreads();
  } else {
    options.SetIntraOpNumThreads(threads);
    options.SetInterOpNumThreads(1);
  }
  options.SetExecutionMode(ORT_SEQUENTIAL);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  if (!library.empty()) options.RegisterCustomOpsLibrary(library.c_str());
  return Ort::Session(env, model.c_str(), options);
}

std::set<std::string> input_names_of(const Ort::Session& session) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::set<std::string> names;
  for (std::size_t i = 0; i < session.GetInputCount(); ++i) names.insert(session.GetInputNameAllocated(i, allocator).get());
  return names;
}

// Every input file, read before anything runs; every graph input must be given.
std::map<std::string, Tensor> read_inputs(const Options& o, const std::set<std::string>& graph_inputs) {
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, file] : o.inputs) {
    if (!graph_inputs.count(name)) throw std::invalid_argument("--input " + name + ": the model has no input of that name");
    if (!tensors.emplace(name, qtune::executor::read_tensor(file)).second)
      throw std::invalid_argument("--input " + name + " given twice");
  }
  for (const std::string& name : graph_inputs)
    if (!tensors.count(name)) throw std::invalid_argument("graph input " + name + " has no --input");
  return tensors;
}

// One session's run on the inputs: its outputs by name, in the session's order.
class Runner {
 public:
  Runner(Ort::Session& session, std::map<std::string, Tensor>& tensors) : session_(session) {
    const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    for (auto& [name, tensor] : tensors) {
      input_names_.push_back(name.c_str());
      input_values_.push_back(Ort::Value::CreateTensor(memory, tensor.bytes.data(), tensor.bytes.size(), tensor.shape.data(),
                                                       tensor.shape.size(), onnx_type(tensor.type)));
    }
    Ort::AllocatorWithDefaultOptions allocator;
    for (std::size_t i = 0; i < session.GetOutputCount(); ++i)
      output_names_.push_back(session.GetOutputNameAllocated(i, allocator).get());
    for (const auto& name : output_names_) output_pointers_.push_back(name.c_str());
  }

  std::vector<Ort::Value> run() {
    return session_.Run(Ort::RunOptions{nullptr}, input_names_.data(), input_values_.data(), input_values_.size(),
                        output_pointers_.data(), output_pointers_.size());
  }
  const std::vector<std::string>& output_names() const { return output_names_; }

 private:
  Ort::Session& session_;
  std::vector<const char*> input_names_;
  std::vector<Ort::Value> input_values_;
  std::vector<std::string> output_names_;
  std::vector<const char*> output_pointers_;
};

std::vector<Tensor> tensors_of(const std::vector<Ort::Value>& outputs, const std::vector<std::string>& names) {
  std::vector<Tensor> tensors;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto info = outputs[i].GetTensorTypeAndShapeInfo();
    Tensor t;
    t.type = element_type(info.GetElementType(), names[i]);
    t.shape = info.GetShape();
    const auto* data = static_cast<const std::uint8_t*>(outputs[i].GetTensorRawData());
    t.bytes.assign(data, data + qtune::executor::tensor_data_bytes(t.type, t.shape));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

void write_outputs(const std::string& directory, const std::vector<Tensor>& tensors, const std::vector<std::string>& names) {
  std::filesystem::create_directories(directory);
  for (std::size_t i = 0; i < tensors.size(); ++i)
    qtune::executor::write_tensor(
        (std::filesystem::path(directory) / qtune::executor::tensor_file_name(names[i], ".npy")).string(), tensors[i]);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// MODEL alone against REWRITTEN with the library: interleaved rounds, then the outputs compared.
// The two sessions share one pool of intra-op threads: with a pool each, the idle session's
// workers spin after its run while the other runs, and take its cores.
int compare(const Options& o) {
  Ort::ThreadingOptions threading;
  threading.SetGlobalIntraOpNumThreads(o.threads);
  threading.SetGlobalInterOpNumThreads(1);
  const Ort::Env env(threading, ORT_LOGGING_LEVEL_WARNING, "qtune-ort");
  Ort::Session plain = make_session(env, o.model, "", 0);
  Ort::Session rewritten = make_session(env, o.compare, o.library, 0, o.optimized, o.profile);
  const std::set<std::string> graph_inputs = input_names_of(plain);
  if (input_names_of(rewritten) != graph_inputs) throw std::invalid_argument(o.compare + " has other inputs than " + o.model);
  std::map<std::string, Tensor> tensors = read_inputs(o, graph_inputs);
  Runner a(plain, tensors), b(rewritten, tensors);
  if (a.output_names() != b.output_names()) throw std::invalid_argument(o.compare + " has other outputs than " + o.model);
  const std::vector<Tensor> expected = tensors_of(a.run(), a.output_names());  // also the warm-up
  const std::vector<Tensor> got = tensors_of(b.run(), b.output_names());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].type == got[i].type && expected[i].shape == got[i].shape && expected[i].bytes == got[i].bytes) continue;
    ++differing;
    std::cerr << "qtune-ort: output " << a.output_names()[i] << " differs between the two models\n";
  }
  const auto time = [](Runner& r) {
    const auto start = std::chrono::steady_clock::now();
    r.run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<double> ta, tb;
  for (int round = 0; round < o.rounds; ++round) {
    if (round % 2) {
      tb.push_back(time(b));
      ta.push_back(time(a));
    } else {
      ta.push_back(time(a));
      tb.push_back(time(b));
    }
  }
  const double ma = median(ta), mb = median(tb);
  std::cout << std::fixed << std::setprecision(3) << "onnxruntime alone: " << ma << " ms  with qtune's library: " << mb
            << " ms  speedup " << std::setprecision(2) << ma / mb << "x  (" << o.threads << " thread(s), median of "
            << o.rounds << " interleaved rounds; outputs " << (differing ? "DIFFER" : "equal") << ")\n";
  if (!o.output.empty()) write_outputs(o.output, got, b.output_names());
  if (!o.profile.empty()) {
    Ort::AllocatorWithDefaultOptions allocator;
    std::cout << "profile: " << rewritten.EndProfilingAllocated(allocator).get() << "\n";
  }
  return differing ? 1 : 0;
}

int run(const Options& o) {
  Ort::InitApi(load_onnxruntime(o.onnxruntime));
  if (!o.compare.empty()) return compare(o);
  const Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "qtune-ort");
  Ort::Session session = make_session(env, o.model, o.library, o.threads, o.optimized, o.profile);
  std::map<std::string, Tensor> tensors = read_inputs(o, input_names_of(session));
  Runner runner(session, tensors);
  const std::vector<Tensor> outputs = tensors_of(runner.run(), runner.output_names());
  write_outputs(o.output, outputs, runner.output_names());
  if (!o.profile.empty()) {
    Ort::AllocatorWithDefaultOptions allocator;
    std::cout << "profile: " << session.EndProfilingAllocated(allocator).get() << "\n";
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
