// A candidate from keys that arrive as text (a command line, the isolated worker's request). Internal
// to measure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "qtune/measure/candidate.h"

namespace qtune::detail {

// The one place keys are parsed: a built-in operator's into its Workload and, by the workload's
// space on this CPU, its Config; a test operator's by its own factory. Throws CandidateError
// (invalid_workload / invalid_config / runtime_error).
std::unique_ptr<Candidate> make_candidate_from_keys(const std::string& workload_key, const std::string& config_key,
                                                    std::uint64_t seed);

}  // namespace qtune::detail
