// The whole-model reader (qtune::onnx_import::read_model_graph: protobuf parsing, the checks of
// every node, QDQ fusion, qtune's shape inference): any bytes as a model file give a graph or a
// ModelError whose message names the file; any other exception, a crash or a sanitizer report is
// a finding. read_model_graph takes a path: each input is written to one file per process first.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <typeinfo>

#include "fuzz_check.h"
#include "scratch_dir.h"
#include "qtune/onnx_import/model_graph.h"

namespace {

// The process's one model file, in a scratch directory (tests/scratch_dir.h) removed when the
// process exits.
const std::string& model_path() {
  static const qtune::testing::ScratchDir directory;
  static const std::string path = directory.file("model.onnx");
  return path;
}

void write_model(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(model_path().c_str(), "wb");
  qtune::fuzz::require(f != nullptr, "cannot create " + model_path());
  const std::size_t written = size == 0 ? 0 : std::fwrite(data, 1, size, f);
  qtune::fuzz::require(std::fclose(f) == 0 && written == size, "cannot write " + model_path());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_model(data, size);
  try {
    const qtune::onnx_import::ModelGraph graph = qtune::onnx_import::read_model_graph(model_path());
    // An accepted graph is whole: every op writes a known tensor, every input and output is one.
    for (const auto& op : graph.ops) {
      qtune::fuzz::require(graph.tensors.count(op.output) == 1, "op '" + op.name + "' writes an unknown tensor");
      for (const auto& input : op.inputs)
        qtune::fuzz::require(graph.tensors.count(input) == 1, "op '" + op.name + "' reads an unknown tensor");
    }
    for (const auto& name : graph.inputs) qtune::fuzz::require(graph.tensors.count(name) == 1, "unknown graph input");
    for (const auto& name : graph.outputs) qtune::fuzz::require(graph.tensors.count(name) == 1, "unknown graph output");
  } catch (const qtune::onnx_import::ModelError& e) {
    const std::string message = e.what();
    qtune::fuzz::require(message.rfind(model_path() + ":", 0) == 0, "a ModelError names the file: " + message);
  } catch (const std::exception& e) {
    qtune::fuzz::invariant_failed(std::string("not a ModelError: ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    qtune::fuzz::invariant_failed("an exception of unknown type");
  }
  return 0;
}
