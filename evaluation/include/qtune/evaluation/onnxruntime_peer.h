// onnxruntime as a timing peer of `qtune run --model` and `qtune bench`: the model runs in
// onnxruntime (Node.js and onnxruntime-node, as evaluation/onnxruntime_timing.js drives it), whole and
// per node (its profiler's kernel times), at several thread counts, in rounds that the caller
// alternates with its own timings (qtune, onnxruntime, qtune, onnxruntime, ...), so that a slow
// phase of a shared machine hits both sides.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "qtune/evaluation/interleaved_timing.h"

namespace qtune::evaluation {

// Every timed run of one session (one thread count).
struct OnnxRuntimeSamples {
  int threads = 1;
  std::vector<int> round;       // the round of each run
  std::vector<double> model_ns;  // session.run of the whole model, from Node.js
  // By ONNX node name (onnxruntime's rewritten <name>_token_<n> counted as <name>): kernel time per run.
  std::map<std::string, std::vector<double>> node_ns;
};

class OnnxRuntimePeer {
 public:
  // Starts onnxruntime on `model` with one session per thread count; std::runtime_error naming
  // what is missing (Node.js; onnxruntime-node: scripts/setup.sh installs it into .deps/node,
  // QTUNE_NODE_MODULES names another node_modules folder) or what onnxruntime said.
  OnnxRuntimePeer(const std::string& model, const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
                  const std::vector<int>& threads);
  ~OnnxRuntimePeer();
  OnnxRuntimePeer(const OnnxRuntimePeer&) = delete;
  OnnxRuntimePeer& operator=(const OnnxRuntimePeer&) = delete;

  const std::string& version() const { return version_; }
  // One round: each session in turn runs at least `runs` times and for at least `min_seconds`.
  void time_round(int runs, double min_seconds);
  // Ends the sessions; every timed run, per thread count in the order given.
  std::vector<OnnxRuntimeSamples> finish();

 private:
  std::string request(const std::string& command);  // one line out (none when empty), one line back
  void stop();
  pid_t pid_ = -1;
  std::FILE* to_node_ = nullptr;
  std::FILE* from_node_ = nullptr;
  std::string version_;
};

// The model's (and its layers') timings at one thread count, one sample per run.
struct OnnxRuntimeRun {
  int threads = 1;
  CaseTiming model;                          // session.run of the whole model
  std::map<std::string, CaseTiming> layers;  // by layer name: the kernel times of its nodes, summed per run
  CaseTiming other;                          // the nodes of no layer (pooling, layout transposes, ...)
};

struct LayerNodes {
  std::string layer;
  std::vector<std::string> nodes;  // ONNX node names
};

OnnxRuntimeRun layer_timings(const OnnxRuntimeSamples& samples, const std::vector<LayerNodes>& layers);

// One sample per round: the mean kernel time of `node` over the round's runs (as Google Benchmark
// reports one mean per repetition in `qtune bench`).
std::vector<double> node_round_means(const OnnxRuntimeSamples& samples, const std::string& node);

// The thread counts to time onnxruntime at beside qtune at `budget` threads: 1 and the budget, or 1
// and 2 for a budget of 1.
std::vector<int> onnxruntime_thread_counts(int budget);

}  // namespace qtune::evaluation
