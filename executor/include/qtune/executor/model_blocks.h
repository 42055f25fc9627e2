// A model's blocks of layers as tuned units (qtune/search_space/block_workload.h): the chains the
// executor can run fused, their candidates (the layers one by one, or fused over strips of several
// heights), and a block prepared at one of them (what the tuner measures: qtune/evaluation/block_tuning.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/onnx_import/model_graph.h"
#include "qtune/search_space/block_workload.h"

namespace qtune::executor {

struct ModelBlock {
  std::string name;  // the member operations' names joined by '+', as the executor's fused step
  BlockWorkload workload;
};

// The inverted-residual blocks of a graph, at a thread budget, in the graph's order; each member's
// workload is the one the runtime looks the layer up by (runtime::workload_of), so a block's key
// is the same whether the tuner or the executor makes it.
std::vector<ModelBlock> model_blocks(const onnx_import::ModelGraph& graph, int threads);

// The configurations a block is measured at: its layers one by one (with the first member set),
// and fused at each strip height that leaves every thread a strip (the executor's planned height
// among them), with each member set. `member_sets`: each a configuration key per member (qtune's
// kernels, points of the conv2d space; the layers' tuned ones, their defaults). Distinct keys.
std::vector<BlockConfig> block_candidates(const BlockWorkload& block,
                                          const std::vector<std::vector<std::string>>& member_sets);

// A block's member as the caller holds it: the convolution over the whole tensor, its weights (HWIO)
// and bias, kept alive while the PreparedBlock lives.
struct BlockLayer {
  Conv2dProblem problem;
  const std::int8_t* weights = nullptr;
  const std::int32_t* bias = nullptr;
};

// A block prepared at one configuration: fused over strips of `config.rows` rows, or its layers one
// by one, each member with its configuration from `config` (at the block's thread budget).
// std::invalid_argument naming the problem: members that are no block, a member configuration that
// is not a point of the conv2d space or is a library's, a configuration a member or strip cannot run.
class PreparedBlock {
 public:
  PreparedBlock(const std::vector<BlockLayer>& members, const BlockConfig& config, int threads);
  PreparedBlock(PreparedBlock&&) noexcept;
  PreparedBlock& operator=(PreparedBlock&&) noexcept;
  ~PreparedBlock();

  // input: the first member's (NHWC); output: the last member's. Not reentrant (one scratch).
  void run(const void* input, void* output) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qtune::executor
