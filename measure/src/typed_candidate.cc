// A candidate from typed objects (the tuner's Workload and Config): the configuration is checked
// against the workload's space on this CPU, which is what parsing its key there would have
// decided, without the round trip through text.
#include <stdexcept>

#include "operator_candidates.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/candidate.h"
#include "qtune/search_space/key_text.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune {

std::unique_ptr<Candidate> make_candidate(const Workload& workload, const Config& config, std::uint64_t seed) {
  try {
    workload.validate();
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_workload, "workload key '" + workload.key() + "': " + e.what());
  }
  std::string problem;
  try {
    problem = space_for(workload, cpu_features()).check(config);
  } catch (const InvalidConfig& e) {
    problem = e.what();
  }
  // Escaped: a Config built in code may hold any bytes, and the message must stay serializable as
  // JSON (a key parsed from text was checked for that where it arrived).
  if (!problem.empty())
    throw CandidateError(ErrorKind::invalid_config, "configuration '" + printable(config.key()) + "' is not in the " +
                                                        std::string(to_string(workload.op)) +
                                                        " space of the workload on this CPU: " + printable(problem));
  return detail::make_operator_candidate(workload, config, seed);
}

}  // namespace qtune
