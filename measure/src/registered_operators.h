// The operators registered from above measure (register_operator in qtune/measure/candidate.h).
// Internal to measure.
#pragma once

#include <string>

#include "qtune/measure/candidate.h"

namespace qtune::detail {

// The factory registered for `op`, or an empty one.
CandidateFactory registered_operator(const std::string& op);

}  // namespace qtune::detail
