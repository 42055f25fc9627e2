#include "qtune/tuner/transfer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <unordered_set>

#include "qtune/tuner/shape_features.h"

namespace qtune {
namespace {

std::optional<double> as_number(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return v;
}

double value_distance(const std::string& wanted, const std::string& have) {
  if (wanted == have) return 0;
  const auto a = as_number(wanted), b = as_number(have);
  // Numbers compare on a log scale (blocking 256 vs 512 is as far as 32 vs 64); 0 often means
  // "whole dimension", so it is kept apart from every finite choice.
  if (a && b && *a > 0 && *b > 0) return std::abs(std::log2(*a) - std::log2(*b));
  return 1;
}

// Conditional knobs are absent from configurations where they do not apply.
const std::string* value_of(const Config& config, const std::string& knob) {
  for (const auto& [name, value] : config.assignments()) {
    if (name == knob) return &value;
  }
  return nullptr;
}

double config_distance(const KnobSpace& space, const Config& candidate, const Config& foreign) {
  double d = 0;
  for (const auto& knob : space.knobs()) {
    const std::string* wanted = value_of(foreign, knob.name);
    const std::string* have = value_of(candidate, knob.name);
    if (!wanted && !have) continue;
    // A knob only one side has means a structurally different choice (another conv algorithm).
    d += wanted && have ? value_distance(*wanted, *have) : 1;
  }
  return d;
}

}  // namespace

std::vector<SimilarWorkload> similar_workloads(const Workload& workload,
                                               const std::vector<PriorMeasurement>& measurements, std::size_t limit) {
  const std::string own_key = workload.key();
  std::map<std::string, SimilarWorkload> by_key;
  for (const auto& m : measurements) {
    if (m.workload.op != workload.op) continue;
    std::string key = m.workload.key();
    if (key == own_key) continue;
    auto [it, inserted] = by_key.try_emplace(key);
    if (inserted) {
      it->second.workload = m.workload;
      it->second.distance = shape_distance(workload, m.workload);
    }
    it->second.observations.push_back(Observation{m.config, m.gops});
  }
  std::vector<SimilarWorkload> result;
  for (auto& [key, similar] : by_key) {
    const bool any_success = std::any_of(similar.observations.begin(), similar.observations.end(),
                                         [](const Observation& o) { return o.gops.has_value(); });
    if (any_success) result.push_back(std::move(similar));
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const SimilarWorkload& a, const SimilarWorkload& b) { return a.distance < b.distance; });
  if (result.size() > limit) result.resize(limit);
  return result;
}

std::optional<Config> adapt_config(const KnobSpace& space, const Config& foreign) {
  try {
    if (space.check(foreign).empty()) return space.parse(foreign.key());
  } catch (const InvalidConfig&) {
    // Knobs or values this space does not know: fall through to the nearest valid configuration.
  }
  // Small spaces: the exact nearest valid configuration. Large ones: the nearest of a fixed sample
  // of the space, then downhill over neighbours.
  constexpr std::uint64_t kExactLimit = 1u << 16;
  std::optional<Config> best;
  double best_distance = std::numeric_limits<double>::infinity();
  auto consider = [&](const Config& c) {
    const double d = config_distance(space, c, foreign);
    if (d < best_distance) {
      best_distance = d;
      best = c;
      return true;
    }
    return false;
  };
  if (space.size() <= kExactLimit) {
    for (const auto& c : space.enumerate()) consider(c);
    return best;
  }
  std::mt19937_64 rng(foreign.hash());
  for (int i = 0; i < 4096; ++i) consider(space.sample(rng));
  for (bool improved = best.has_value(); improved;) {
    improved = false;
    for (const auto& n : space.neighbours(*best)) improved = consider(n) || improved;
  }
  return best;
}

std::vector<Config> transfer_candidates(const KnobSpace& space, const std::vector<SimilarWorkload>& similar,
                                        std::size_t per_workload) {
  std::vector<Config> candidates;
  std::unordered_set<std::string> seen;
  for (const auto& s : similar) {
    std::vector<const Observation*> ranked;
    for (const auto& o : s.observations) {
      if (o.gops) ranked.push_back(&o);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Observation* a, const Observation* b) { return *a->gops > *b->gops; });
    for (std::size_t i = 0; i < ranked.size() && i < per_workload; ++i) {
      auto adapted = adapt_config(space, ranked[i]->config);
      if (adapted && seen.insert(adapted->key()).second) candidates.push_back(std::move(*adapted));
    }
  }
  return candidates;
}

void add_transfer_priors(CostModel& model, const std::vector<SimilarWorkload>& similar, double max_weight) {
  for (const auto& s : similar) {
    model.add_prior(shape_features(s.workload), s.observations, max_weight / (1.0 + s.distance));
  }
}

}  // namespace qtune
