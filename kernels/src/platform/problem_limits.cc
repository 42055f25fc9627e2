// The size limits of kernels/include/qtune/kernels/limits.h: overflow-checked byte counts of a
// layer and the messages for dimensions and layers that exceed them.
#include "qtune/kernels/limits.h"

#include <cstdio>
#include <initializer_list>
#include <limits>
#include <utility>

namespace qtune {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
// Bias (int32), weight zero point (int32), and the scale as double, fixed point and float.
constexpr std::uint64_t kBytesPerOutputChannel = 4 + 4 + 8 + 8 + 4;

std::uint64_t as_count(std::int64_t value) { return value < 0 ? 0 : static_cast<std::uint64_t>(value); }

// a * b * ..., saturating at UINT64_MAX: an absurd layer must compare as absurd, not wrap to small.
std::uint64_t product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t result = 1;
  for (std::uint64_t f : factors) {
    if (__builtin_mul_overflow(result, f, &result)) return kSaturated;
  }
  return result;
}

std::uint64_t sum(std::initializer_list<std::uint64_t> terms) {
  std::uint64_t result = 0;
  for (std::uint64_t t : terms) {
    if (__builtin_add_overflow(result, t, &result)) return kSaturated;
  }
  return result;
}

std::string check_dimensions(std::initializer_list<std::pair<const char*, std::int64_t>> fields) {
  for (const auto& [name, value] : fields) {
    if (value > kMaxDimension) {
      return std::string(name) + " " + std::to_string(value) + " exceeds the largest dimension qtune accepts, " +
             std::to_string(kMaxDimension) + " (2^31 - 1)";
    }
  }
  return {};
}

std::string check_bytes(std::uint64_t bytes) {
  if (bytes <= kMaxLayerBytes) return {};
  return "the layer needs " + (bytes == kSaturated ? std::string("more than 2^64 bytes") : describe_bytes(bytes)) +
         " of tensors, more than the " + describe_bytes(kMaxLayerBytes) + " a layer may use";
}

}  // namespace

std::string describe_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::uint64_t layer_bytes(const GemmProblem& p) {
  const std::uint64_t m = as_count(p.m), n = as_count(p.n), k = as_count(p.k);
  return sum({product({m, k}), product({2, k, n}), product({4, m, n}), product({kBytesPerOutputChannel, n})});
}

std::uint64_t layer_bytes(const Conv2dProblem& p) {
  const std::uint64_t groups = p.groups < 1 ? 1 : as_count(p.groups);
  const std::uint64_t in_per_group = as_count(p.in_c) / groups;
  const std::uint64_t pixels = product({as_count(p.batch), as_count(p.out_h()), as_count(p.out_w())});
  const std::uint64_t taps = product({as_count(p.kernel_h), as_count(p.kernel_w)});
  return sum({product({as_count(p.batch), as_count(p.in_h), as_count(p.in_w), as_count(p.in_c)}),
              product({2, taps, in_per_group, as_count(p.out_c)}), product({4, pixels, as_count(p.out_c)}),
              product({pixels, taps, in_per_group}), product({kBytesPerOutputChannel, as_count(p.out_c)})});
}

std::string size_problem(const GemmProblem& p) {
  if (std::string why = check_dimensions({{"m", p.m}, {"n", p.n}, {"k", p.k}}); !why.empty()) return why;
  return check_bytes(layer_bytes(p));
}

std::string size_problem(const Conv2dProblem& p) {
  std::string why = check_dimensions({{"batch", p.batch},
                                      {"in_h", p.in_h},
                                      {"in_w", p.in_w},
                                      {"in_c", p.in_c},
                                      {"out_c", p.out_c},
                                      {"kernel_h", p.kernel_h},
                                      {"kernel_w", p.kernel_w},
                                      {"stride_h", p.stride_h},
                                      {"stride_w", p.stride_w},
                                      {"dilation_h", p.dilation_h},
                                      {"dilation_w", p.dilation_w},
                                      {"pad_top", p.pad_top},
                                      {"pad_bottom", p.pad_bottom},
                                      {"pad_left", p.pad_left},
                                      {"pad_right", p.pad_right},
                                      {"groups", p.groups}});
  if (!why.empty()) return why;
  return check_bytes(layer_bytes(p));
}

}  // namespace qtune
