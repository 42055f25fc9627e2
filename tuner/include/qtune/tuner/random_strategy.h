// Random search: uniform over the valid configurations, without repeats, reproducible from a seed.
#pragma once

#include <cstdint>

#include "qtune/tuner/random_order.h"
#include "qtune/tuner/strategy.h"

namespace qtune {

class RandomStrategy final : public Strategy {
 public:
  RandomStrategy(const KnobSpace& space, std::uint64_t seed);

  std::string_view name() const override { return "random"; }
  std::vector<Config> propose(const TrialHistory& history, std::size_t count) override;

 private:
  RandomOrder order_;
};

}  // namespace qtune
