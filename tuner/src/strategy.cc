#include "qtune/tuner/strategy.h"

namespace qtune {

std::string_view to_string(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::grid: return "grid";
    case StrategyKind::random: return "random";
    case StrategyKind::model: return "model";
  }
  return "?";
}

std::optional<StrategyKind> parse_strategy_kind(std::string_view name) {
  for (auto kind : {StrategyKind::grid, StrategyKind::random, StrategyKind::model}) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

}  // namespace qtune
