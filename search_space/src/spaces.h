// The per-operator halves of operator_spaces.h. Internal to search_space.
#pragma once

#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune::detail {

KnobSpace gemm_full_space();
KnobSpace gemm_space_for(const Workload& workload, const CpuFeatures& cpu);

KnobSpace conv2d_full_space();
KnobSpace conv2d_space_for(const Workload& workload, const CpuFeatures& cpu);

// Instruction sets of this build that `cpu` can execute, in kAllIsas order.
std::vector<Isa> runnable_isas(const CpuFeatures& cpu);

}  // namespace qtune::detail
