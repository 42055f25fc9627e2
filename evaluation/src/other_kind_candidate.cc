#include "qtune/evaluation/other_kind_candidate.h"

#include "qtune/search_space/operator_spaces.h"

namespace qtune::evaluation {

std::optional<OtherKindCandidate> other_kind_candidate(const Workload& workload, const std::string& tuned_kind,
                                                       const std::optional<reports::KindMargin>& won_by,
                                                       const CpuFeatures& cpu) {
  if (won_by) {
    // The tuned choice may be either of the two (a close call confirmed the other way, a merge):
    // the candidate is whichever is not of its kind.
    for (const reports::KindBest* best : {&won_by->winner, &won_by->runner_up}) {
      if (best->kind != tuned_kind) return OtherKindCandidate{best->kind, best->config_key, "tuning"};
    }
  }
  if (tuned_kind != "qtune") return OtherKindCandidate{"qtune", default_config(workload, cpu).key(), "default"};
  std::optional<Config> library;
  for (Config& c : library_configs(space_for(workload, cpu))) {
    // The first at the whole budget, else the most threads offered.
    const int threads = c.get_int("threads");
    if (!library || (library->get_int("threads") != workload.threads &&
                     (threads == workload.threads || threads > library->get_int("threads")))) {
      library = std::move(c);
    }
  }
  if (!library) return std::nullopt;
  return OtherKindCandidate{reports::candidate_kind(library->key()), library->key(), "offered"};
}

}  // namespace qtune::evaluation
