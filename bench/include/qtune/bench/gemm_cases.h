// The cases of `qtune bench --op gemm` (the shapes, instruction sets and thread counts a caller
// asks for): every usable GEMM variant, or exactly the configurations given, beside oneDNN's and
// XNNPACK's same-run peers and the instruction peaks of the measured sets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/bench/bench_cases.h"
#include "qtune/kernels/gemm.h"
#include "qtune/kernels/isa.h"
#include "qtune/measure/drawn_weights.h"

namespace qtune::bench {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};

struct GemmBenchRequest {
  std::vector<GemmShape> shapes;
  std::vector<int> threads{1};
  // Every microkernel of these instruction sets at the shape's default blocking (packed or in-place
  // A, fused or separate requantization), unless `configs` names exactly what to time.
  std::vector<Isa> isas;
  std::vector<GemmConfig> configs;  // their threads knob is replaced by each of `threads`
  DType out_type = DType::s8;       // s8: one fp32 output scale per tensor (the peers' math); or s32
  // qtune's weights (the instruction sets that clip weight pairs run faster the smaller they are;
  // the peers' speed does not depend on them).
  WeightDistribution weights = WeightDistribution::trained;
};

// The shapes of `qtune bench --shapes default`.
std::vector<GemmShape> default_gemm_shapes();

// The instruction peaks of the measured sets, then per shape and thread count qtune's cases and the
// peers'. std::invalid_argument naming the configuration where one of `configs` cannot run a shape.
std::vector<BenchCase> gemm_bench_cases(const GemmBenchRequest& request);

// The benchmark's problem: u8 activations with a zero point, s8 weights, and `out_type` (s8 with
// one fp32 output scale, or s32).
GemmProblem gemm_bench_problem(const GemmShape& shape, DType out_type);

// A case's shape fields (op, m, n, k, operations) for `impl` at `threads`.
BenchCase gemm_shape_case(const GemmShape& shape, const std::string& impl, int threads);

}  // namespace qtune::bench
