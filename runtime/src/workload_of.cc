// Workloads of concrete problems and the normalized keys the runtime looks them up under.
#include "qtune/runtime/workload_of.h"

#include <algorithm>
#include <stdexcept>

namespace qtune::runtime {
namespace {

template <typename Problem>
QuantKind quant_kind_of_problem(const Problem& p) {
  QuantKind q;
  q.a_type = p.a_type;
  q.out_type = p.out_type;
  q.a_zero_point_nonzero = p.a_zero_point != 0;
  q.b_zero_point_nonzero = std::any_of(p.b_zero_points.begin(), p.b_zero_points.end(),
                                       [](std::int32_t zp) { return zp != 0; });
  const bool requantized = p.out_type != DType::s32;
  q.per_channel = p.b_zero_points.size() > 1 || (requantized && p.requant.per_channel());
  q.rounding = requantized ? p.requant.mode : RoundingMode::tflite;
  // The output range starts at (or above) the zero point: what a fused ReLU gives, and what lets
  // the kernels drop the tie correction of negative results (RequantPlan::make).
  q.relu = requantized && p.requant.qmin >= p.requant.output_zero_point;
  return q;
}

void check_threads(int threads) {
  if (threads < 1)
    throw std::invalid_argument("thread budget must be >= 1, got " + std::to_string(threads));
}

}  // namespace

QuantKind quant_kind_of(const GemmProblem& problem) { return quant_kind_of_problem(problem); }
QuantKind quant_kind_of(const Conv2dProblem& problem) { return quant_kind_of_problem(problem); }

Workload workload_of(const GemmProblem& problem, int threads) {
  problem.validate();
  check_threads(threads);
  Workload w;
  w.op = OpKind::gemm;
  w.m = problem.m;
  w.n = problem.n;
  w.k = problem.k;
  w.quant = quant_kind_of(problem);
  w.threads = threads;
  return w;
}

Workload workload_of(const Conv2dProblem& problem, int threads) {
  problem.validate();
  check_threads(threads);
  Workload w;
  w.op = OpKind::conv2d;
  w.batch = problem.batch;
  w.in_h = problem.in_h;
  w.in_w = problem.in_w;
  w.in_c = problem.in_c;
  w.out_c = problem.out_c;
  w.kernel_h = problem.kernel_h;
  w.kernel_w = problem.kernel_w;
  w.stride_h = problem.stride_h;
  w.stride_w = problem.stride_w;
  w.dilation_h = problem.dilation_h;
  w.dilation_w = problem.dilation_w;
  w.pad_top = problem.pad_top;
  w.pad_bottom = problem.pad_bottom;
  w.pad_left = problem.pad_left;
  w.pad_right = problem.pad_right;
  w.groups = problem.groups;
  w.quant = quant_kind_of(problem);
  w.threads = threads;
  return w;
}

QuantKind normalized(QuantKind quant) {
  if (quant.out_type == DType::s32) {
    quant.rounding = RoundingMode::tflite;
    if (!quant.b_zero_point_nonzero) quant.per_channel = true;
  }
  return quant;
}

std::string lookup_key(const Workload& workload) {
  Workload w = workload;
  w.quant = normalized(w.quant);
  return w.key();
}

std::string family_key(const Workload& workload) {
  // A fixed reference shape keeps only the fields that define the family in the key's spelling.
  Workload w;
  w.op = workload.op;
  w.quant = normalized(workload.quant);
  // A fused ReLU changes only the epilogue: configurations tuned without one (or by a qtune that
  // did not know the field) are the nearest ones for the same layer with one, and vice versa.
  w.quant.relu = false;
  std::string structure;
  if (workload.op == OpKind::conv2d) {
    const bool depthwise = workload.groups == workload.in_c && workload.groups > 1 &&
                           workload.out_c % workload.in_c == 0;
    structure = depthwise ? "|depthwise" : workload.groups > 1 ? "|grouped" : "|dense";
  }
  // Quantization fields start after the shape; cut the key at ";a=".
  const std::string key = w.key();
  const auto quant_start = key.find(";a=");
  const auto threads_start = key.rfind(";threads=");
  return std::string(to_string(workload.op)) + "|" + key.substr(quant_start + 1, threads_start - quant_start - 1) +
         structure;
}

}  // namespace qtune::runtime
