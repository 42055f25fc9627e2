#include "qtune/evaluation/onnxruntime_peer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace qtune::evaluation {
namespace {

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

// Node.js on PATH, or "" when there is none.
std::string find_node() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / "node";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

const char* const kInstallHint =
    " (scripts/setup.sh installs Node.js, and onnxruntime-node into .deps/node; QTUNE_NODE_MODULES names another "
    "node_modules folder)";

}  // namespace

OnnxRuntimePeer::OnnxRuntimePeer(const std::string& model,
                                 const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
                                 const std::vector<int>& threads) {
  const char* env_modules = std::getenv("QTUNE_NODE_MODULES");
  const std::string modules = env_modules && *env_modules ? env_modules : QTUNE_NODE_MODULES;
  if (!std::filesystem::exists(std::filesystem::path(modules) / "onnxruntime-node" / "package.json"))
    throw std::runtime_error("onnxruntime-node is not installed in " + modules + kInstallHint);
  const std::string node = find_node();
  if (node.empty()) throw std::runtime_error(std::string("Node.js (node) is not on PATH") + kInstallHint);
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, dims] : input_shapes) shapes[name] = dims;
  std::string thread_list;
  for (const int t : threads) {
    if (!thread_list.empty()) thread_list += ',';
    thread_list += std::to_string(t);
  }
  const std::vector<std::string> argv_strings{node, QTUNE_ONNXRUNTIME_SCRIPT, modules, model, thread_list, shapes.dump()};

  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe to onnxruntime");
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    throw std::runtime_error("cannot create a pipe from onnxruntime");
  }
  std::vector<char*> argv;
  for (const auto& s : argv_strings) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (pid_ < 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    throw std::runtime_error("cannot start " + node);
  }
  // A write to a Node.js that has died must be an error here, not SIGPIPE ending qtune.
  ::signal(SIGPIPE, SIG_IGN);
  to_node_ = ::fdopen(to_child[1], "w");
  from_node_ = ::fdopen(from_child[0], "r");
  try {
    const auto ready = nlohmann::json::parse(request(""));
    version_ = ready.at("version").get<std::string>();
  } catch (...) {
    stop();
    throw;
  }
}

OnnxRuntimePeer::~OnnxRuntimePeer() { stop(); }

// Closing its standard input ends the script (it reads no 'end'); then it is reaped.
void OnnxRuntimePeer::stop() {
  if (to_node_) std::fclose(to_node_);
  if (from_node_) std::fclose(from_node_);
  to_node_ = from_node_ = nullptr;
  if (pid_ > 0) {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

std::string OnnxRuntimePeer::request(const std::string& command) {
  if (!to_node_ || !from_node_) throw std::runtime_error("onnxruntime is not running");
  if (!command.empty()) {
    if (std::fputs((command + "\n").c_str(), to_node_) < 0 || std::fflush(to_node_) != 0)
      throw std::runtime_error("onnxruntime stopped (see its message above)");
  }
  std::string line;
  for (int c; (c = std::fgetc(from_node_)) != EOF && c != '\n';) line += static_cast<char>(c);
  if (line.empty()) throw std::runtime_error("onnxruntime stopped without an answer (see its message above)");
  return line;
}

void OnnxRuntimePeer::time_round(int runs, double min_seconds) {
  request("round " + std::to_string(runs) + " " + std::to_string(min_seconds * 1e3));
}

std::vector<OnnxRuntimeSamples> OnnxRuntimePeer::finish() {
  const auto result = nlohmann::json::parse(request("end"));
  stop();
  std::vector<OnnxRuntimeSamples> out;
  for (const auto& run : result.at("runs")) {
    OnnxRuntimeSamples s;
    s.threads = run.at("threads").get<int>();
    s.round = run.at("round").get<std::vector<int>>();
    s.model_ns = run.at("model_ns").get<std::vector<double>>();
    for (const auto& [node, times] : run.at("node_ns").items()) {
      auto& sums = s.node_ns[model_node_name(node)];
      const auto values = times.get<std::vector<double>>();
      sums.resize(s.model_ns.size(), 0.0);
      for (std::size_t i = 0; i < values.size() && i < sums.size(); ++i) sums[i] += values[i];
    }
    out.push_back(std::move(s));
  }
  return out;
}

OnnxRuntimeRun layer_timings(const OnnxRuntimeSamples& samples, const std::vector<LayerNodes>& layers) {
  std::map<std::string, std::string> layer_of;  // node name -> layer name
  for (const auto& layer : layers) {
    for (const auto& node : layer.nodes) layer_of[node] = layer.layer;
  }
  const std::size_t runs = samples.model_ns.size();
  std::map<std::string, std::vector<double>> per_layer;  // per run, summed over the layer's nodes
  std::vector<double> other(runs, 0.0);
  for (const auto& [node, times] : samples.node_ns) {
    const auto it = layer_of.find(node);
    std::vector<double>& sums = it == layer_of.end() ? other : per_layer[it->second];
    sums.resize(runs, 0.0);
    for (std::size_t i = 0; i < times.size() && i < runs; ++i) sums[i] += times[i];
  }
  OnnxRuntimeRun out;
  out.threads = samples.threads;
  out.model = case_timing(samples.model_ns);
  for (const auto& [layer, sums] : per_layer) out.layers[layer] = case_timing(sums);
  out.other = case_timing(other);
  return out;
}

std::vector<double> node_round_means(const OnnxRuntimeSamples& samples, const std::string& node) {
  const auto it = samples.node_ns.find(node);
  if (it == samples.node_ns.end()) return {};
  std::map<int, std::pair<double, int>> rounds;  // round -> (sum, runs)
  for (std::size_t i = 0; i < it->second.size() && i < samples.round.size(); ++i) {
    auto& [sum, count] = rounds[samples.round[i]];
    sum += it->second[i];
    ++count;
  }
  std::vector<double> out;
  for (const auto& [round, sum_count] : rounds) out.push_back(sum_count.first / sum_count.second);
  return out;
}

std::vector<int> onnxruntime_thread_counts(int budget) { return {1, budget == 1 ? 2 : budget}; }

}  // namespace qtune::evaluation
