// The built-in operators' candidate factories. Internal to measure.
#pragma once

#include <memory>

#include "qtune/measure/candidate.h"
#include "qtune/search_space/workload.h"

namespace qtune::detail {

std::unique_ptr<Candidate> make_gemm_candidate(const Workload& workload, const std::string& config_key,
                                               std::uint64_t seed);
std::unique_ptr<Candidate> make_conv2d_candidate(const Workload& workload, const std::string& config_key,
                                                 std::uint64_t seed);

}  // namespace qtune::detail
