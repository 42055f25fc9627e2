// Beside each layer's tuned choice, `qtune run` times the best candidate of the other kind: a
// library (oneDNN) where the choice runs on qtune's kernels, qtune's own kernels where it runs on a
// library. Both compute the layer bit-exact in its own rounding, so the two times, taken in one run,
// say whether the tuning's choice between qtune's kernels and the libraries holds on the machine now.
#pragma once

#include <optional>
#include <string>

#include "qtune/kernels/cpu_features.h"
#include "qtune/reports/candidate_kinds.h"
#include "qtune/search_space/workload.h"

namespace qtune::evaluation {

struct OtherKindCandidate {
  std::string kind;        // "qtune" or a library's name (reports::candidate_kind)
  std::string config_key;  // the configuration to run
  // Where it comes from: "tuning" (the best of its kind among the database's measurements of the
  // layer), "offered" (the library at the layer's thread budget, as the layer's space offers it,
  // untuned) or "default" (qtune's untuned default).
  std::string origin;
};

// The other kind's candidate for a layer whose tuned choice is of `tuned_kind`: the best of the
// other kind the tuning measured (won_by) where it measured both kinds for this very workload; else,
// for a choice on qtune's kernels, the library configuration the layer's space offers at its whole
// thread budget (the one thread count a library is normally run at); for a choice on a library,
// qtune's default. nullopt where the layer has no candidate of another kind (no library offers it).
std::optional<OtherKindCandidate> other_kind_candidate(const Workload& workload, const std::string& tuned_kind,
                                                       const std::optional<reports::KindMargin>& won_by,
                                                       const CpuFeatures& cpu);

}  // namespace qtune::evaluation
