// Exhaustive search: every valid configuration once, in the space's canonical order.
#pragma once

#include "qtune/tuner/strategy.h"

namespace qtune {

class GridStrategy final : public Strategy {
 public:
  explicit GridStrategy(const KnobSpace& space);

  std::string_view name() const override { return "grid"; }
  std::vector<Config> propose(const TrialHistory& history, std::size_t count) override;

 private:
  std::vector<Config> order_;
  std::size_t next_ = 0;  // everything before it was proposed or found already measured
};

}  // namespace qtune
