// The executor tests' models and their reference: build_networks.py writes the models and inputs,
// run_onnxruntime.js runs them in onnxruntime-node (scripts/setup.sh installs both's needs).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace qtune::testing {

inline std::string source_path(const std::string& relative) { return std::string(QTUNE_SOURCE_DIR) + "/" + relative; }

// build_networks.py with these arguments (a model or an input file).
inline void build(const std::string& arguments) {
  const std::string command = std::string(QTUNE_PYTHON) + " " + source_path("tests/executor/build_networks.py") + " " + arguments;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

inline std::string dims(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (const auto d : shape) {
    if (!out.empty()) out += ',';
    out += std::to_string(d);
  }
  return out;
}

// One of build_networks.py's networks in one form at one image size, as a test parameter.
struct NetworkCase {
  std::string network, form;
  int image;
  std::string name() const { return network + "_" + form + "_" + std::to_string(image); }
};

// Runs the model in onnxruntime on the given .npy inputs; its outputs land in `dir`.
inline void run_onnxruntime(const std::string& model, const std::vector<std::pair<std::string, std::string>>& inputs,
                            const std::string& dir, int threads) {
  ASSERT_TRUE(std::filesystem::exists(std::filesystem::path(QTUNE_NODE_MODULES) / "onnxruntime-node"))
      << "onnxruntime-node is not installed in " << QTUNE_NODE_MODULES << " (scripts/setup.sh installs it)";
  std::ostringstream command;
  command << QTUNE_NODE << " " << source_path("tests/executor/run_onnxruntime.js") << " " << QTUNE_NODE_MODULES << " "
          << model << " " << dir << " " << threads;
  for (const auto& [name, file] : inputs) command << " " << name << "=" << file;
  ASSERT_EQ(std::system(command.str().c_str()), 0) << command.str();
}

}  // namespace qtune::testing
