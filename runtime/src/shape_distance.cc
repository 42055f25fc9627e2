// The distance between shapes used to pick the nearest tuned layer (see shape_distance.h).
#include "qtune/runtime/shape_distance.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace qtune::runtime {
namespace {

constexpr std::size_t kDims = 5;
using Dims = std::array<double, kDims>;

std::int64_t out_extent(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b, std::int64_t kernel,
                        std::int64_t stride, std::int64_t dilation) {
  const std::int64_t span = in + pad_a + pad_b - (dilation * (kernel - 1) + 1);
  return span < 0 ? 0 : span / stride + 1;
}

// The dimensions compared; GEMM uses the first three and leaves the others at 1 (log2 1 = 0).
Dims dims_of(const Workload& w) {
  if (w.op == OpKind::gemm) return {double(w.m), double(w.n), double(w.k), 1.0, 1.0};
  const double oh = double(out_extent(w.in_h, w.pad_top, w.pad_bottom, w.kernel_h, w.stride_h, w.dilation_h));
  const double ow = double(out_extent(w.in_w, w.pad_left, w.pad_right, w.kernel_w, w.stride_w, w.dilation_w));
  const double groups = double(w.groups < 1 ? 1 : w.groups);
  return {double(w.batch) * oh * ow, double(w.out_c), double(w.kernel_h * w.kernel_w) * double(w.in_c) / groups,
          double(w.kernel_h * w.kernel_w), double(w.stride_h * w.stride_w)};
}

// |log2(a/b)| with empty extents (a zero-sized output) treated as 1 so the distance stays finite.
double log_ratio(double a, double b) { return std::abs(std::log2(a < 1 ? 1 : a) - std::log2(b < 1 ? 1 : b)); }

}  // namespace

double shape_distance(const Workload& a, const Workload& b) {
  if (a.op != b.op)
    throw std::invalid_argument("shape_distance: cannot compare a " + std::string(to_string(a.op)) + " with a " +
                                std::string(to_string(b.op)));
  const Dims da = dims_of(a), db = dims_of(b);
  double sum = 0;
  for (std::size_t i = 0; i < kDims; ++i) sum += log_ratio(da[i], db[i]);
  return sum;
}

bool nearer(const Workload& query, const Workload& a, const Workload& b) {
  const double distance_a = shape_distance(query, a), distance_b = shape_distance(query, b);
  if (distance_a != distance_b) return distance_a < distance_b;
  const double threads_a = log_ratio(query.threads, a.threads), threads_b = log_ratio(query.threads, b.threads);
  if (threads_a != threads_b) return threads_a < threads_b;
  return a.key() < b.key();
}

}  // namespace qtune::runtime
