// Builds the strategy of one task. The model-guided strategy gets the transfer from similar tuned
// shapes: priors for its cost model and their best configurations as first candidates.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/model_strategy.h"
#include "qtune/tuner/strategy.h"
#include "qtune/tuner/transfer.h"

namespace qtune {

// `space` is the task's space (space_for the workload on this CPU); `similar` may be empty (no
// transfer). Grid and random ignore `similar`.
std::unique_ptr<Strategy> make_strategy(StrategyKind kind, const KnobSpace& space, const Workload& workload,
                                        const std::vector<SimilarWorkload>& similar, std::uint64_t seed,
                                        const ModelStrategyOptions& options = {});

}  // namespace qtune
