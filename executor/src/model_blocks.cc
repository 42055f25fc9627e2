// A model's inverted-residual blocks as tuned units, and the configurations each is measured at.
#include "qtune/executor/model_blocks.h"

#include <algorithm>
#include <set>

#include "fused_inverted_residual.h"
#include "graph_chains.h"
#include "qtune/runtime/workload_of.h"

namespace qtune::executor {

std::vector<ModelBlock> model_blocks(const onnx_import::ModelGraph& graph, int threads) {
  std::vector<ModelBlock> blocks;
  for (const auto& chain : inverted_residual_chains(graph, graph_use(graph, {}))) {
    ModelBlock block;
    for (const onnx_import::GraphOp* member : chain) {
      block.name += (block.name.empty() ? "" : "+") + member->name;
      block.workload.members.push_back(runtime::workload_of(*conv_of(member), threads));
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

std::vector<BlockConfig> block_candidates(const BlockWorkload& block,
                                          const std::vector<std::vector<std::string>>& member_sets) {
  const Workload& middle = block.members[block.members.size() - 2];
  const Conv2dProblem middle_problem = middle.conv2d_problem();
  const std::int64_t out_h = middle_problem.out_h();
  std::optional<Conv2dProblem> expand;
  if (block.expands()) expand = block.members[0].conv2d_problem();
  std::set<std::int64_t> heights{1, 2, 4, 8, 16, 32};
  if (const std::int64_t planned = plan_inverted_residual_rows(expand ? &*expand : nullptr, middle_problem,
                                                               kInvertedResidualStripBytes, kInvertedResidualMinPixels,
                                                               middle.threads))
    heights.insert(planned);
  std::vector<BlockConfig> candidates;
  std::set<std::string> keys;
  const auto add = [&](BlockConfig c) {
    if (keys.insert(c.key()).second) candidates.push_back(std::move(c));
  };
  for (std::size_t s = 0; s < member_sets.size(); ++s) {
    if (s == 0) add({false, 0, member_sets[s]});
    for (const std::int64_t rows : heights) {
      const std::int64_t strips = middle.batch * ((out_h + rows - 1) / rows);
      if (rows >= out_h || strips < middle.threads) continue;
      add({true, rows, member_sets[s]});
    }
  }
  return candidates;
}

}  // namespace qtune::executor
