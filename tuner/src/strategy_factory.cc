#include "qtune/tuner/strategy_factory.h"

#include "qtune/search_space/operator_spaces.h"
#include "qtune/tuner/grid_strategy.h"
#include "qtune/tuner/random_strategy.h"
#include "qtune/tuner/shape_features.h"

namespace qtune {

std::unique_ptr<Strategy> make_strategy(StrategyKind kind, const KnobSpace& space, const Workload& workload,
                                        const std::vector<SimilarWorkload>& similar, std::uint64_t seed,
                                        const ModelStrategyOptions& options) {
  switch (kind) {
    case StrategyKind::grid: return std::make_unique<GridStrategy>(space);
    case StrategyKind::random: return std::make_unique<RandomStrategy>(space, seed);
    case StrategyKind::model: {
      // The operator's full space fixes one feature layout for every shape, so measurements of
      // other shapes can train the same model.
      GbtOptions gbt;
      gbt.seed = seed;
      CostModel model(full_space(workload.op), gbt);
      add_transfer_priors(model, similar);
      return std::make_unique<ModelStrategy>(space, std::move(model), shape_features(workload), seed, options,
                                             transfer_candidates(space, similar));
    }
  }
  return nullptr;
}

}  // namespace qtune
