#include "onnxruntime_peer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace qtune::cli {
namespace {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// onnxruntime names a node it rewrote "<name>_token_<n>": the name it had in the model.
std::string model_node_name(const std::string& node) {
  const std::string marker = "_token_";
  const auto at = node.rfind(marker);
  if (at == std::string::npos || at + marker.size() == node.size()) return node;
  for (std::size_t i = at + marker.size(); i < node.size(); ++i) {
    if (node[i] < '0' || node[i] > '9') return node;
  }
  return node.substr(0, at);
}

std::string run_command(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) throw std::runtime_error("cannot start: " + command);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe.release());
  if (status != 0) throw std::runtime_error("onnxruntime timing failed (see its message above): " + command);
  return out;
}

}  // namespace

OnnxRuntimeTimings time_in_onnxruntime(const std::string& model,
                                       const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
                                       const std::vector<LayerNodes>& layers, const std::vector<int>& threads,
                                       int repetitions) {
  const char* env_modules = std::getenv("QTUNE_NODE_MODULES");
  const std::string modules = env_modules && *env_modules ? env_modules : QTUNE_NODE_MODULES;
  if (!std::filesystem::exists(std::filesystem::path(modules) / "onnxruntime-node" / "package.json")) {
    throw std::runtime_error("onnxruntime-node is not installed in " + modules +
                             " (scripts/setup.sh installs it; QTUNE_NODE_MODULES names another node_modules folder)");
  }
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, dims] : input_shapes) shapes[name] = dims;
  std::string thread_list;
  for (const int t : threads) thread_list += (thread_list.empty() ? "" : ",") + std::to_string(t);
  const std::string command = "node " + shell_quote(QTUNE_ONNXRUNTIME_SCRIPT) + " " + shell_quote(modules) + " " +
                              shell_quote(model) + " " + thread_list + " " + std::to_string(repetitions) + " " +
                              shell_quote(shapes.dump());
  const nlohmann::json result = nlohmann::json::parse(run_command(command));

  // Node name -> layer name.
  std::map<std::string, std::string> layer_of;
  for (const auto& layer : layers) {
    for (const auto& node : layer.nodes) layer_of[node] = layer.layer;
  }
  OnnxRuntimeTimings timings;
  timings.version = result.at("version").get<std::string>();
  for (const auto& run : result.at("runs")) {
    OnnxRuntimeRun out;
    out.threads = run.at("threads").get<int>();
    out.model = case_timing(run.at("model_ns").get<std::vector<double>>());
    std::map<std::string, std::vector<double>> per_layer;  // per timed run, summed over the layer's nodes
    std::vector<double> other(static_cast<std::size_t>(repetitions), 0.0);
    for (const auto& [node, times] : run.at("node_ns").items()) {
      const auto it = layer_of.find(model_node_name(node));
      std::vector<double>& sums = it == layer_of.end() ? other : per_layer[it->second];
      sums.resize(static_cast<std::size_t>(repetitions), 0.0);
      const auto values = times.get<std::vector<double>>();
      for (std::size_t i = 0; i < values.size() && i < sums.size(); ++i) sums[i] += values[i];
    }
    for (const auto& [layer, sums] : per_layer) out.layers[layer] = case_timing(sums);
    out.other = case_timing(other);
    timings.runs.push_back(std::move(out));
  }
  return timings;
}

}  // namespace qtune::cli
