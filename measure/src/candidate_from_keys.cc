// Keys to a candidate: the text boundary of measurement, where built-in operators become typed
// objects and registered operators (blocks of layers, tests' faulty ones: no Workload describes
// them) go to their factory.
#include "candidate_from_keys.h"

#include <stdexcept>

#include "operator_candidates.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/operator_spaces.h"
#include "registered_operators.h"

namespace qtune::detail {

std::unique_ptr<Candidate> make_candidate_from_keys(const std::string& workload_key, const std::string& config_key,
                                                    std::uint64_t seed) {
  const std::string op = workload_key.substr(0, workload_key.find(':'));
  if (op != "gemm" && op != "conv2d") {
    const CandidateFactory factory = registered_operator(op);
    if (!factory)
      throw CandidateError(ErrorKind::invalid_workload, "workload key '" + workload_key + "': unknown operator '" + op +
                                                            "' (known: gemm, conv2d)");
    return factory(workload_key, config_key, seed);
  }
  Workload workload;
  try {
    workload = Workload::parse_key(workload_key);
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_workload, e.what());
  }
  // Parsed by the space, the configuration is one of its points: the candidate needs no further check.
  Config config;
  try {
    config = space_for(workload, cpu_features()).parse(config_key);
  } catch (const InvalidConfig& e) {
    throw CandidateError(ErrorKind::invalid_config, e.what());
  }
  return make_operator_candidate(workload, config, seed);
}

}  // namespace qtune::detail
