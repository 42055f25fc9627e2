#include "graph_chains.h"

#include <set>

#include "fused_inverted_residual.h"

namespace qtune::executor {

using onnx_import::GraphOp;
using onnx_import::GraphOpKind;

GraphUse graph_use(const onnx_import::ModelGraph& graph, const std::vector<std::string>& extra_outputs) {
  GraphUse use;
  for (const GraphOp& op : graph.ops) {
    use.producer[op.output] = &op;
    for (const std::string& name : op.inputs) {
      ++use.readers[name];
      use.reader[name] = &op;
    }
  }
  for (const std::string& name : graph.outputs) ++use.readers[name];
  for (const std::string& name : extra_outputs) ++use.readers[name];
  return use;
}

const Conv2dProblem* conv_of(const GraphOp* op) {
  if (op == nullptr || op->kind != GraphOpKind::layer || op->layer->op != OpKind::conv2d) return nullptr;
  return &op->layer->conv;
}

std::vector<std::vector<const GraphOp*>> inverted_residual_chains(const onnx_import::ModelGraph& graph,
                                                                  const GraphUse& use) {
  std::vector<std::vector<const GraphOp*>> chains;
  std::set<std::string> taken;  // member outputs of the chains found so far
  for (const GraphOp& op : graph.ops) {
    const Conv2dProblem* middle = conv_of(&op);
    if (middle == nullptr || !middle->depthwise() || use.readers_of(op.output) != 1) continue;
    const GraphOp* project = use.reader_of(op.output);
    if (conv_of(project) == nullptr || project->inputs[0] != op.output) continue;
    const GraphOp* expand = use.producer_of(op.inputs[0]);
    if (conv_of(expand) == nullptr || use.readers_of(expand->output) != 1 || taken.count(expand->output) ||
        !inverted_residual_mismatch(conv_of(expand), *middle, *conv_of(project)).empty())
      expand = nullptr;
    if (!inverted_residual_mismatch(conv_of(expand), *middle, *conv_of(project)).empty()) continue;
    std::vector<const GraphOp*> chain;
    for (const GraphOp* member : {expand, &op, project})
      if (member != nullptr) {
        chain.push_back(member);
        taken.insert(member->output);
      }
    chains.push_back(std::move(chain));
  }
  return chains;
}

}  // namespace qtune::executor
