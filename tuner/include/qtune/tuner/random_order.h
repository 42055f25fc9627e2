// A seeded stream of distinct configurations drawn uniformly from a space: the building block of
// random search and of the exploration steps of the model-guided search.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "qtune/search_space/knob_space.h"

namespace qtune {

class RandomOrder {
 public:
  // Spaces up to this size are enumerated once and shuffled (exact, exhaustible); larger ones are
  // sampled with rejection of repeats.
  static constexpr std::uint64_t kShuffleLimit = 1u << 18;

  RandomOrder(const KnobSpace& space, std::uint64_t seed);

  // The next configuration of the stream that `skip` does not reject; nullopt when none is left.
  // The same seed gives the same stream.
  std::optional<Config> next(const std::function<bool(const Config&)>& skip);

 private:
  KnobSpace space_;
  std::mt19937_64 rng_;
  bool shuffled_mode_;
  std::vector<Config> shuffled_;
  std::size_t next_ = 0;
  std::unordered_set<std::string> drawn_;  // sampling mode: keys already returned
};

}  // namespace qtune
