#include "qtune/search_space/target_compatibility.h"

#include <stdexcept>

namespace qtune {
namespace {

std::string isa_names(const std::vector<Isa>& isas) {
  std::string out;
  for (Isa isa : isas) {
    if (!out.empty()) out += ',';  // appended piece by piece: GCC 12 misreports -Wrestrict on "," + string
    out += to_string(isa);
  }
  return out;
}

// The differences of `candidate` from `current` with their weight (see the header's order).
struct Difference {
  int weight;
  std::string text;
};

std::vector<Difference> differences(const Target& current, const Target& candidate) {
  std::vector<Difference> out;
  auto differ = [&](int weight, const std::string& field, const std::string& theirs, const std::string& ours) {
    if (theirs == ours) return;
    std::string text = field;
    text.append(" ").append(theirs).append(" -> ").append(ours);
    out.push_back({weight, std::move(text)});
  };
  differ(16, "instruction sets", isa_names(candidate.isas), isa_names(current.isas));
  differ(8, "cores", std::to_string(candidate.cores), std::to_string(current.cores));
  differ(4, "L1d", std::to_string(candidate.l1d), std::to_string(current.l1d));
  differ(4, "L2", std::to_string(candidate.l2), std::to_string(current.l2));
  differ(4, "L3", std::to_string(candidate.l3), std::to_string(current.l3));
  differ(2, "compiler", candidate.compiler, current.compiler);
  differ(1, "qtune", candidate.qtune_version, current.qtune_version);
  return out;
}

}  // namespace

std::string TargetNeighbour::describe() const {
  std::string out;
  for (const auto& d : differences) {
    if (!out.empty()) out += ", ";
    out += d;
  }
  return out;
}

std::optional<TargetNeighbour> nearest_compatible_target(const Target& current,
                                                          const std::vector<std::string>& candidates) {
  // Compared as keys spell them (the key sanitizes the CPU model string).
  const Target here = Target::parse_key(current.key());
  std::optional<TargetNeighbour> best;
  int best_weight = 0;
  for (const std::string& key : candidates) {
    Target candidate;
    try {
      candidate = Target::parse_key(key);
    } catch (const std::invalid_argument&) {
      continue;  // not a target this qtune can read: never a neighbour
    }
    if (candidate.arch != here.arch || candidate.cpu != here.cpu) continue;
    const std::vector<Difference> found = differences(here, candidate);
    int weight = 0;
    for (const auto& d : found) weight += d.weight;
    if (best && (weight > best_weight || (weight == best_weight && key >= best->key))) continue;
    best = TargetNeighbour{key, {}};
    for (const auto& d : found) best->differences.push_back(d.text);
    best_weight = weight;
  }
  return best;
}

}  // namespace qtune
