// Conv2dProblem: output shape, validation, the GEMM view, and the ConvAlgo names.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/limits.h"

namespace qtune {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("conv2d: " + what); }

void require_at_least(const char* field, std::int64_t value, std::int64_t min) {
  if (value < min) fail(std::string(field) + " must be >= " + std::to_string(min) + ", got " + std::to_string(value));
}

// Output extent of one spatial dimension; may be <= 0 for impossible shapes (validate() says so).
std::int64_t out_extent(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b, std::int64_t kernel,
                        std::int64_t stride, std::int64_t dilation) {
  if (stride < 1 || dilation < 1 || kernel < 1) return 0;
  const std::int64_t span = (kernel - 1) * dilation + 1;
  const std::int64_t padded = in + pad_a + pad_b;
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

}  // namespace

std::int64_t Conv2dProblem::out_h() const {
  return out_extent(in_h, pad_top, pad_bottom, kernel_h, stride_h, dilation_h);
}

std::int64_t Conv2dProblem::out_w() const {
  return out_extent(in_w, pad_left, pad_right, kernel_w, stride_w, dilation_w);
}

void Conv2dProblem::validate() const {
  require_at_least("batch", batch, 1);
  require_at_least("in_h", in_h, 1);
  require_at_least("in_w", in_w, 1);
  require_at_least("in_c", in_c, 1);
  require_at_least("out_c", out_c, 1);
  require_at_least("kernel_h", kernel_h, 1);
  require_at_least("kernel_w", kernel_w, 1);
  require_at_least("stride_h", stride_h, 1);
  require_at_least("stride_w", stride_w, 1);
  require_at_least("dilation_h", dilation_h, 1);
  require_at_least("dilation_w", dilation_w, 1);
  require_at_least("pad_top", pad_top, 0);
  require_at_least("pad_bottom", pad_bottom, 0);
  require_at_least("pad_left", pad_left, 0);
  require_at_least("pad_right", pad_right, 0);
  require_at_least("groups", groups, 1);
  // Upper bounds before anything multiplies the sizes (out_h(), the checks below, the kernels).
  if (const std::string problem = size_problem(*this); !problem.empty()) fail(problem);
  if (in_c % groups != 0) fail("in_c " + std::to_string(in_c) + " is not divisible by groups " + std::to_string(groups));
  if (out_c % groups != 0) fail("out_c " + std::to_string(out_c) + " is not divisible by groups " + std::to_string(groups));
  if (out_h() < 1) fail("the padded input height is smaller than the dilated kernel height (no output rows)");
  if (out_w() < 1) fail("the padded input width is smaller than the dilated kernel width (no output columns)");
  if (a_type != DType::u8 && a_type != DType::s8) fail("a_type must be u8 or s8");
  const std::int32_t a_lo = a_type == DType::u8 ? 0 : -128, a_hi = a_type == DType::u8 ? 255 : 127;
  if (a_zero_point < a_lo || a_zero_point > a_hi) {
    fail("a_zero_point " + std::to_string(a_zero_point) + " is outside the range of " + std::string(to_string(a_type)));
  }
  if (b_zero_points.size() != 1 && b_zero_points.size() != static_cast<std::size_t>(out_c)) {
    fail("b_zero_points must hold 1 or out_c (" + std::to_string(out_c) + ") values, got " +
         std::to_string(b_zero_points.size()));
  }
  for (std::int32_t zb : b_zero_points) {
    if (zb < -128 || zb > 127) fail("b_zero_points value " + std::to_string(zb) + " is outside [-128, 127]");
  }
  if (out_type != DType::s32) {
    if (requant.channels() != 1 && requant.channels() != static_cast<std::size_t>(out_c)) {
      fail("requant must hold 1 or out_c (" + std::to_string(out_c) + ") scales, got " +
           std::to_string(requant.channels()));
    }
    if (const std::string problem = requant.check(out_type); !problem.empty()) fail(problem);
  }
}

GemmProblem Conv2dProblem::as_gemm() const {
  GemmProblem g;
  const std::int64_t group_out = groups > 0 ? out_c / groups : out_c;
  g.m = batch * out_h() * out_w();
  g.n = group_out;
  g.k = kernel_h * kernel_w * (groups > 0 ? in_c / groups : in_c);
  g.a_type = a_type;
  g.a_zero_point = a_zero_point;
  g.has_bias = has_bias;
  g.out_type = out_type;
  // Per-channel parameters: group 0's slice (every group's GEMM has the same shape and kind).
  if (b_zero_points.size() > 1) {
    g.b_zero_points.assign(b_zero_points.begin(), b_zero_points.begin() + std::min<std::int64_t>(group_out, b_zero_points.size()));
  } else {
    g.b_zero_points = b_zero_points;
  }
  g.requant = requant;
  if (out_type != DType::s32 && requant.per_channel() && groups > 1) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(group_out, requant.channels()));
    g.requant.scales.resize(n);
    g.requant.fixed.resize(n);
    g.requant.scales_f32.resize(n);
  }
  return g;
}

std::string_view to_string(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::im2col: return "im2col";
    case ConvAlgo::indirect: return "indirect";
    case ConvAlgo::gemm_1x1: return "gemm_1x1";
    case ConvAlgo::depthwise: return "depthwise";
    case ConvAlgo::implicit: return "implicit";
  }
  return "?";
}

std::optional<ConvAlgo> parse_conv_algo(std::string_view name) {
  for (ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::gemm_1x1, ConvAlgo::depthwise, ConvAlgo::implicit}) {
    if (to_string(algo) == name) return algo;
  }
  return std::nullopt;
}

}  // namespace qtune
