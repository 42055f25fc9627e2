// onnxruntime as a timing peer of `qtune run --model`: the model runs in onnxruntime (Node.js and
// onnxruntime-node, as tools/onnxruntime_timing.js drives it), whole and per layer (its profiler's
// kernel times of the nodes a layer stands for), at each thread count asked for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "interleaved_timing.h"

namespace qtune::cli {

struct OnnxRuntimeRun {
  int threads = 1;
  CaseTiming model;                          // session.run of the whole model
  std::map<std::string, CaseTiming> layers;  // by layer name: the kernel times of its nodes, summed per run
  CaseTiming other;                          // the nodes of no layer (pooling, layout transposes, ...)
};

struct OnnxRuntimeTimings {
  std::string version;
  std::vector<OnnxRuntimeRun> runs;
};

struct LayerNodes {
  std::string layer;
  std::vector<std::string> nodes;  // ONNX node names (onnxruntime names a node it rewrote <name>_token_<n>)
};

// Runs the timing script; std::runtime_error naming what is missing (Node.js, onnxruntime-node:
// scripts/setup.sh installs it into .deps/node; QTUNE_NODE_MODULES names another folder).
OnnxRuntimeTimings time_in_onnxruntime(const std::string& model,
                                       const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
                                       const std::vector<LayerNodes>& layers, const std::vector<int>& threads,
                                       int repetitions);

}  // namespace qtune::cli
