#include "fused_conv_add.h"

#include <algorithm>
#include <stdexcept>

#include "qtune/kernels/parallel.h"
#include "quantized_ops.h"

namespace qtune::executor {
namespace {

bool pointwise(const Conv2dProblem& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_bottom == 0 && p.pad_left == 0 && p.pad_right == 0 && p.groups == 1 && p.out_type != DType::s32;
}

Conv2dProblem strip_problem(const Conv2dProblem& conv, std::int64_t rows) {
  Conv2dProblem strip = conv;
  strip.batch = 1;
  strip.in_h = rows;
  return strip;
}

Conv2dConfig one_thread(Conv2dConfig config) {
  config.gemm.threads = 1;
  return config;
}

}  // namespace

std::optional<ConvStrips> plan_conv_strips(const Conv2dProblem& conv, std::size_t target_bytes, std::int64_t min_pixels) {
  if (!pointwise(conv) || conv.in_w < 1) return std::nullopt;
  const std::int64_t total = conv.batch * conv.in_h;
  const auto row_bytes = static_cast<std::size_t>(conv.in_w * conv.out_c);
  const std::int64_t least = (std::max<std::int64_t>(min_pixels, 1) + conv.in_w - 1) / conv.in_w;
  const std::int64_t most = std::max<std::int64_t>(static_cast<std::int64_t>(target_bytes / std::max<std::size_t>(row_bytes, 1)), least);
  // The tallest divisor of the rows within [least, most] giving two strips or more; else the
  // shortest above `least`.
  std::int64_t rows = 0;
  for (std::int64_t r = std::min(most, total / 2); r >= least && rows == 0; --r)
    if (total % r == 0) rows = r;
  for (std::int64_t r = least; r <= total / 2 && rows == 0; ++r)
    if (total % r == 0) rows = r;
  if (rows == 0) return std::nullopt;
  return ConvStrips{rows, total / rows};
}

FusedConvAdd::FusedConvAdd(const Conv2dProblem& conv, const Conv2dConfig& config, const std::int8_t* weights,
                           const std::int32_t* bias, ConvStrips strips, bool conv_first, onnx_import::Quantization qa,
                           onnx_import::Quantization qb, onnx_import::Quantization qc)
    : strip_conv_(Conv2dOp::prepare(strip_problem(conv, strips.rows), one_thread(config), weights, bias)),
      strips_(strips),
      strip_in_bytes_(static_cast<std::size_t>(strips.rows * conv.in_w * conv.in_c)),
      strip_out_bytes_(static_cast<std::size_t>(strips.rows * conv.in_w * conv.out_c)),
      conv_first_(conv_first),
      qa_(qa),
      qb_(qb),
      qc_(qc) {
  if (!pointwise(conv) || strips.rows < 1 || strips.strips * strips.rows != conv.batch * conv.in_h)
    throw std::invalid_argument("fused conv + add: the strips do not tile a pointwise convolution's rows");
}

template <typename T>
void FusedConvAdd::run(const void* conv_input, const T* skip, T* out, std::uint8_t* scratch, int threads) const {
  const auto strips = static_cast<std::size_t>(strips_.strips);
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), strips);
  const auto* in = static_cast<const std::uint8_t*>(conv_input);
  // Each worker a contiguous run of strips, its own strip buffer.
  const auto run_strips = [&](std::size_t task, int thread) {
    T* strip = reinterpret_cast<T*>(scratch + static_cast<std::size_t>(thread) * strip_out_bytes_);
    for (std::size_t s = strips * task / workers; s < strips * (task + 1) / workers; ++s) {
      strip_conv_.run(in + s * strip_in_bytes_, strip);
      const std::size_t at = s * strip_out_bytes_;
      if (conv_first_) qlinear_add<T>(strip, skip + at, out + at, strip_out_bytes_, qa_, qb_, qc_);
      else qlinear_add<T>(skip + at, strip, out + at, strip_out_bytes_, qa_, qb_, qc_);
    }
  };
  if (workers <= 1) run_strips(0, 0);
  else parallel_for(workers, static_cast<int>(workers), run_strips);
}

template void FusedConvAdd::run<std::uint8_t>(const void*, const std::uint8_t*, std::uint8_t*, std::uint8_t*, int) const;
template void FusedConvAdd::run<std::int8_t>(const void*, const std::int8_t*, std::int8_t*, std::uint8_t*, int) const;

}  // namespace qtune::executor
