// The cases of `qtune bench --op conv2d` for one layer: every usable conv2d variant (GEMM-based
// algorithms x microkernels x packed or in-place A x fused or separate requantization, or the
// depthwise kernel tiles), beside oneDNN's same-run peer and the instruction peaks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/bench/bench_cases.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/isa.h"
#include "qtune/measure/drawn_weights.h"
#include "qtune/search_space/workload.h"

namespace qtune::bench {

struct Conv2dBenchRequest {
  Workload workload;  // a conv2d layer (its geometry; the benchmark sets the quantization)
  std::vector<int> threads{1};
  std::vector<Isa> isas;       // the instruction sets whose variants are timed
  DType out_type = DType::s8;  // s8: per-channel fp32 output scales (the peers' math); or s32
  WeightDistribution weights = WeightDistribution::trained;  // as GemmBenchRequest::weights
};

std::vector<BenchCase> conv2d_bench_cases(const Conv2dBenchRequest& request);

// The benchmark's quantization: u8 input with a zero point, symmetric weights, per-channel fp32
// scales to s8 with a zero point (what oneDNN computes), or s32.
Conv2dProblem conv2d_bench_problem(const Workload& workload, DType out_type);

// The operands every case of a problem computes on: drawn from one seed, so qtune's variants and
// the peers see the same values.
struct ConvOperands {
  explicit ConvOperands(const Conv2dProblem& problem, WeightDistribution weights = WeightDistribution::trained);
  std::vector<std::uint8_t> input, output;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;
};

// A case's shape fields (the layer's geometry, its GEMM M x N x K, operations) for `impl`.
BenchCase conv2d_shape_case(const Conv2dProblem& problem, const std::string& impl, int threads);

}  // namespace qtune::bench
