// The chains of a model's graph that the executor can run as one fused step: who reads and who
// writes each tensor, and MobileNetV2's inverted-residual blocks. The compiler fuses them; the
// tuner measures them as blocks (qtune/executor/model_blocks.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "qtune/onnx_import/model_graph.h"

namespace qtune::executor {

// Who reads and who writes each tensor of the graph: the fused blocks' conditions.
struct GraphUse {
  std::map<std::string, int> readers;  // operations reading it, plus one if it is an output of the run
  std::map<std::string, const onnx_import::GraphOp*> producer, reader;  // its writer, its (last) reading operation
  int readers_of(const std::string& name) const { return readers.count(name) ? readers.at(name) : 0; }
  const onnx_import::GraphOp* producer_of(const std::string& name) const {
    return producer.count(name) ? producer.at(name) : nullptr;
  }
  const onnx_import::GraphOp* reader_of(const std::string& name) const {
    return reader.count(name) ? reader.at(name) : nullptr;
  }
};

// `extra_outputs`: tensors the run returns besides the graph's outputs (each counts as a reader).
GraphUse graph_use(const onnx_import::ModelGraph& graph, const std::vector<std::string>& extra_outputs);

// The convolution `op` computes, or null (no operation, or not a convolution layer).
const Conv2dProblem* conv_of(const onnx_import::GraphOp* op);

// The inverted-residual blocks, each its member operations in order ([expansion,] depthwise,
// projection): a depthwise convolution whose output only a pointwise convolution reads, with the
// pointwise convolution before it whose output only it reads (where there is one), each 8-bit
// output in between no output of the run (fused_inverted_residual.h, inverted_residual_mismatch).
std::vector<std::vector<const onnx_import::GraphOp*>> inverted_residual_chains(const onnx_import::ModelGraph& graph,
                                                                               const GraphUse& use);

}  // namespace qtune::executor
