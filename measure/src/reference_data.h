// Inputs drawn from the seed and the scalar reference's output for them, cached per workload so
// that the reference (seconds for a large convolution) runs once per workload, not per candidate.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "qtune/search_space/workload.h"

namespace qtune::detail {

struct ReferenceData {
  std::vector<std::uint8_t> input;   // A (M x K) or the NHWC input, u8 or s8 bytes
  std::vector<std::int8_t> weights;  // B (K x N) or HWIO conv weights
  std::vector<std::int32_t> bias;    // per output channel
  std::vector<std::uint8_t> expected;  // reference output bytes (u8/s8 or s32 little-endian)
  std::size_t output_elements = 0;
  std::size_t output_columns = 0;    // N or C_out: for mismatch positions
  GemmProblem gemm;                  // valid for gemm workloads
  Conv2dProblem conv;                // valid for conv2d workloads
};

std::shared_ptr<const ReferenceData> reference_data(const Workload& workload, std::uint64_t seed);

}  // namespace qtune::detail
