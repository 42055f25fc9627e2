// What the oneDNN layers share: checks of what oneDNN 2.6 computes exactly, and its OpenMP thread
// count. Internal; compiled only when oneDNN is found.
#pragma once

#include <cstdint>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "qtune/kernels/quant.h"

namespace qtune::libraries::detail {

dnnl::memory::data_type onednn_type(DType type);

// "" when oneDNN's raw int32 dot products over `k` terms of `a_type` x s8 cannot overflow int32
// (qtune's wrapping accumulator would then differ from oneDNN's), else why not.
std::string onednn_accumulator_range(DType a_type, std::int64_t k);

// Whether an implementation's s32 output is the exact int32 dot product over `k` terms: oneDNN's
// brgemm kernels with vpdpbusd or AMX store the int32 sums as they are; its other int8 kernels
// convert to float and back even without scales or bias, exact only while |sum| < 2^24.
bool exact_implementation(const std::string& implementation, DType a_type, std::int64_t k);

// Walks oneDNN's implementations of `pd` (best first) to the first exact one; throws
// std::invalid_argument naming the best one when none is.
template <typename PrimitiveDesc>
void select_exact_implementation(PrimitiveDesc& pd, DType a_type, std::int64_t k) {
  const std::string best = pd.impl_info_str();
  do {
    if (exact_implementation(pd.impl_info_str(), a_type, k)) return;
  } while (pd.next_impl());
  throw std::invalid_argument("oneDNN has no implementation with exact int32 output for this layer (its best: " + best +
                              ")");
}

// oneDNN fixes a primitive's parallelization when it is created, from the OpenMP thread count in
// force then, and runs on the calling thread's count: set before creating and before each run.
void set_onednn_threads(int threads);

}  // namespace qtune::libraries::detail
