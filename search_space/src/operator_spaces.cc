// Dispatch of the operator spaces, and the untuned default configuration snapped into the space.
#include "qtune/search_space/operator_spaces.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <map>

#include "spaces.h"

namespace qtune {
namespace {

std::optional<long long> as_integer(const std::string& s) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// The closest domain value to `wanted`: itself when allowed; for numeric knobs the nearest
// non-zero value (0 when `wanted` is 0, i.e. "whole dimension", or when nothing else exists).
std::string nearest_value(const Knob& knob, const std::string& wanted) {
  if (std::find(knob.values.begin(), knob.values.end(), wanted) != knob.values.end()) return wanted;
  auto target = as_integer(wanted);
  if (!knob.numeric || !target) return knob.values.front();
  std::string best = knob.values.front();
  long long best_distance = std::numeric_limits<long long>::max();
  for (const auto& v : knob.values) {
    const long long x = *as_integer(v);
    if (x == 0 && *target != 0) continue;  // 0 is "whole dimension", not a small block
    const long long d = std::llabs(x - *target);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  if (best_distance == std::numeric_limits<long long>::max()) return knob.values.front();
  return best;
}

// The configuration of `space` nearest to `wanted`: knob by knob first, then, if constraints
// still reject it, the valid configuration closest to it, earlier knobs weighing more.
Config snap(const KnobSpace& space, const Config& wanted) {
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const Knob& k : space.knobs()) {
    if (!space.active(k, Config(assignments))) continue;
    std::string value = k.values.front();
    for (const auto& [name, v] : wanted.assignments()) {
      if (name == k.name) value = nearest_value(k, v);
    }
    assignments.emplace_back(k.name, value);
  }
  Config snapped(std::move(assignments));
  if (space.check(snapped).empty()) return snapped;
  const auto all = space.enumerate();
  if (all.empty()) throw InvalidConfig("the " + space.op() + " space has no valid configuration on this CPU");
  // Weighted Hamming distance: a knob earlier in the order (isa, then tile, ...) decides more
  // about the variant, so keeping it outweighs keeping every later knob together.
  std::map<std::string, std::uint64_t> weight;
  const auto& knobs = space.knobs();
  for (std::size_t i = 0; i < knobs.size(); ++i) weight[knobs[i].name] = std::uint64_t{1} << (knobs.size() - i);
  const Config* best = nullptr;
  std::uint64_t best_distance = std::numeric_limits<std::uint64_t>::max();
  for (const Config& c : all) {
    std::uint64_t distance = 0;
    for (const auto& assignment : c.assignments()) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda.
      const std::string& name = assignment.first;
      const auto& w = snapped.assignments();
      auto it = std::find_if(w.begin(), w.end(), [&](const auto& p) { return p.first == name; });
      if (it == w.end() || it->second != assignment.second) distance += weight[name];
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = &c;
    }
  }
  return *best;
}

// A block at least as large as its dimension is the whole dimension, which the space spells 0.
void normalize_blocking(GemmConfig& g, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (g.kc >= k) g.kc = 0;
  if (g.mc >= m) g.mc = 0;
  if (g.nc >= n) g.nc = 0;
}

}  // namespace

KnobSpace full_space(OpKind op) {
  switch (op) {
    case OpKind::gemm: return detail::gemm_full_space();
    case OpKind::conv2d: return detail::conv2d_full_space();
  }
  throw std::invalid_argument("full_space: unknown operator");
}

KnobSpace space_for(const Workload& workload, const CpuFeatures& cpu) {
  workload.validate();
  switch (workload.op) {
    case OpKind::gemm: return detail::gemm_space_for(workload, cpu);
    case OpKind::conv2d: return detail::conv2d_space_for(workload, cpu);
  }
  throw std::invalid_argument("space_for: unknown operator");
}

Config default_config(const Workload& workload, const CpuFeatures& cpu) {
  const KnobSpace space = space_for(workload, cpu);
  Config wanted;
  if (workload.op == OpKind::gemm) {
    GemmConfig g = gemm_default_config(workload.gemm_problem());
    // The kernels' default is single-threaded; an untuned operator still gets the layer's budget.
    g.threads = static_cast<int>(workload.threads);
    normalize_blocking(g, workload.m, workload.n, workload.k);
    wanted = from_gemm_config(g);
  } else {
    const Conv2dProblem problem = workload.conv2d_problem();
    Conv2dConfig c = conv2d_default_config(problem);
    c.gemm.threads = static_cast<int>(workload.threads);
    normalize_blocking(c.gemm, problem.batch * problem.out_h() * problem.out_w(), problem.out_c / problem.groups,
                       problem.kernel_h * problem.kernel_w * (problem.in_c / problem.groups));
    wanted = from_conv2d_config(c);
  }
  return snap(space, wanted);
}

std::vector<Config> weight_dependent_alternatives(const KnobSpace& space, const Config& base) {
  std::vector<std::pair<std::string, std::string>> assignments = base.assignments();
  const auto isa = std::find_if(assignments.begin(), assignments.end(), [](const auto& a) { return a.first == "isa"; });
  if (isa == assignments.end()) return {};  // a library's configuration
  const std::optional<Isa> parsed = parse_isa(isa->second);
  const std::optional<Isa> twin = parsed ? pair_clipping_twin(*parsed) : std::nullopt;
  if (!twin) return {};
  const std::vector<std::string>& isas = space.knob("isa").values;  // the families the CPU may use
  if (std::find(isas.begin(), isas.end(), to_string(*twin)) == isas.end()) return {};
  isa->second = std::string(to_string(*twin));
  const Config alternative = snap(space, Config(std::move(assignments)));
  // The snap keeps earlier knobs first: where the algorithm has no kernels of the twin, it keeps
  // the algorithm and gives the isa back.
  const auto& snapped = alternative.assignments();
  const bool took_twin = std::any_of(snapped.begin(), snapped.end(), [&](const auto& a) {
    return a.first == "isa" && a.second == to_string(*twin);
  });
  if (!took_twin) return {};
  return {alternative};
}

}  // namespace qtune
