// A search strategy for one task: given what has been measured so far, propose what to measure next.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "qtune/search_space/knob_space.h"
#include "qtune/tuner/trial_history.h"

namespace qtune {

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual std::string_view name() const = 0;

  // Up to `count` distinct valid configurations of the task's space, none of them in `history` and
  // none proposed before (proposals are assumed to be measured and added to the history). Fewer,
  // possibly none, once the space is exhausted.
  virtual std::vector<Config> propose(const TrialHistory& history, std::size_t count) = 0;
};

enum class StrategyKind : unsigned char { grid, random, model };

std::string_view to_string(StrategyKind kind);
std::optional<StrategyKind> parse_strategy_kind(std::string_view name);

}  // namespace qtune
