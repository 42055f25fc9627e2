// Models for the tests, built by build_models.py with python3-onnx into a test's directory.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace qtune::onnx_testing {

inline std::string source_path(const std::string& relative) { return std::string(QTUNE_SOURCE_DIR) + "/" + relative; }

// Runs build_models.py with `arguments`; throws with the command when it fails (python3-onnx
// missing: scripts/setup.sh installs it).
inline void build_model(const std::string& arguments) {
  std::ostringstream command;
  command << QTUNE_PYTHON << " " << source_path("tests/onnx_import/build_models.py") << " " << arguments;
  if (std::system(command.str().c_str()) != 0)
    throw std::runtime_error("building a test model failed (is python3-onnx installed? scripts/setup.sh): " + command.str());
}

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "" when onnxruntime's output equals qtune's, else how many elements differ and the first of them.
inline std::string differences(const std::vector<std::uint8_t>& onnxruntime, const std::vector<std::uint8_t>& qtune) {
  if (onnxruntime.size() != qtune.size())
    return "onnxruntime wrote " + std::to_string(onnxruntime.size()) + " bytes, qtune " + std::to_string(qtune.size());
  std::size_t differing = 0, first = 0;
  for (std::size_t i = qtune.size(); i-- > 0;) {
    if (onnxruntime[i] != qtune[i]) {
      ++differing;
      first = i;
    }
  }
  if (differing == 0) return "";
  return std::to_string(differing) + " of " + std::to_string(qtune.size()) + " elements differ; the first at " +
         std::to_string(first) + ": qtune " + std::to_string(int(qtune[first])) + ", onnxruntime " +
         std::to_string(int(onnxruntime[first]));
}

}  // namespace qtune::onnx_testing
