// Models for the tests, built by build_models.py with python3-onnx into a test's directory.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

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

}  // namespace qtune::onnx_testing
