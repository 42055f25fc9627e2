#include "qtune/tuner/shape_features.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qtune {
namespace {

double log2_of(std::int64_t v) { return std::log2(static_cast<double>(std::max<std::int64_t>(v, 1))); }

std::int64_t conv_out(std::int64_t in, std::int64_t pad, std::int64_t kernel, std::int64_t stride,
                      std::int64_t dilation) {
  const std::int64_t span = dilation * (kernel - 1) + 1;
  return stride > 0 ? (in + pad - span) / stride + 1 : 0;
}

}  // namespace

std::vector<std::string> shape_feature_names() {
  return {"log2_m", "log2_n", "log2_k", "log2_groups", "window", "stride", "depthwise",
          "log2_threads", "a_s8", "out_s32", "per_channel"};
}

std::vector<double> shape_features(const Workload& w) {
  std::int64_t m = w.m, n = w.n, k = w.k, groups = 1, window = 1, stride = 1;
  bool depthwise = false;
  if (w.op == OpKind::conv2d) {
    groups = std::max<std::int64_t>(w.groups, 1);
    const std::int64_t oh = conv_out(w.in_h, w.pad_top + w.pad_bottom, w.kernel_h, w.stride_h, w.dilation_h);
    const std::int64_t ow = conv_out(w.in_w, w.pad_left + w.pad_right, w.kernel_w, w.stride_w, w.dilation_w);
    m = w.batch * oh * ow;
    n = w.out_c / groups;
    k = w.kernel_h * w.kernel_w * (w.in_c / groups);
    window = w.kernel_h * w.kernel_w;
    stride = std::max(w.stride_h, w.stride_w);
    depthwise = groups == w.in_c && groups > 1;
  }
  return {log2_of(m),
          log2_of(n),
          log2_of(k),
          log2_of(groups),
          static_cast<double>(window),
          static_cast<double>(stride),
          depthwise ? 1.0 : 0.0,
          log2_of(w.threads),
          w.quant.a_type == DType::s8 ? 1.0 : 0.0,
          w.quant.out_type == DType::s32 ? 1.0 : 0.0,
          w.quant.per_channel ? 1.0 : 0.0};
}

double shape_distance(const Workload& a, const Workload& b) {
  if (a.op != b.op) return std::numeric_limits<double>::infinity();
  const auto fa = shape_features(a), fb = shape_features(b);
  double sum = 0;
  for (std::size_t i = 0; i < fa.size(); ++i) sum += (fa[i] - fb[i]) * (fa[i] - fb[i]);
  return std::sqrt(sum);
}

}  // namespace qtune
