// Which tuning results a process may use when none were made for its exact target (target.h).
//
// A target key holds what must match for a tuned configuration to mean the same thing on this
// process (the architecture and the CPU model) and what only makes another target a neighbour:
// the usable instruction sets (QTUNE_ISAS), the usable cores (taskset, container CPU quotas),
// the cache sizes, the compiler and the qtune version. Pinning a process or restricting its
// instruction sets must not throw its tuning away; a configuration whose instruction set the
// process cannot run is still refused, layer by layer, by whoever runs it (the runtime).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qtune/search_space/target.h"

namespace qtune {

struct TargetNeighbour {
  std::string key;
  std::vector<std::string> differences;  // e.g. "cores 2 -> 1" (candidate's value -> current's)
  std::string describe() const;          // "cores 2 -> 1, compiler gcc 12 -> gcc 13"
};

// The target among `candidates` (keys; unparsable ones are skipped) nearest to `current` that has
// its architecture and CPU model, or nullopt when none has. Nearest: the fewest and least
// important differences, instruction sets weighing most (layers tuned with a set this process
// lacks fall back), then cores, cache sizes, compiler and qtune version; ties go to the
// lexicographically smallest key, so that the choice is deterministic. An exact match is its
// own neighbour with no differences.
std::optional<TargetNeighbour> nearest_compatible_target(const Target& current,
                                                          const std::vector<std::string>& candidates);

}  // namespace qtune
