// The built-in operators' candidates. Internal to measure.
#pragma once

#include <cstdint>
#include <memory>

#include "qtune/measure/candidate.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune::detail {

// `config` must be a point of the workload's space on this CPU, parsed by that space (keys) or
// checked by it (typed objects): it is not checked again here. Throws CandidateError
// (invalid_config when the operator rejects the configuration while preparing) or the operator's
// own exceptions.
std::unique_ptr<Candidate> make_operator_candidate(const Workload& workload, const Config& config,
                                                   std::uint64_t seed);

}  // namespace qtune::detail
