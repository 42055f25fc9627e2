// The executor's operations other than convolutions and matrix products, each in onnxruntime's
// arithmetic (docs/model-executor.md): images are NHWC, other tensors in ONNX's order. T is
// std::uint8_t or std::int8_t.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include <vector>

#include "qtune/onnx_import/model_graph.h"
#include "reciprocal_division.h"

namespace qtune::executor {

using onnx_import::PoolWindow;
using onnx_import::Quantization;

struct ImageShape {
  std::int64_t n = 1, h = 1, w = 1, c = 1;
};

// com.microsoft QLinearAdd of two tensors of equal shape, as onnxruntime's x86 kernels compute it:
// the zero points folded into one constant and the sum in float with fused multiply-adds (AVX2
// and newer), or multiplies and adds (SSE2-only CPUs), rounded half to even and saturated.
template <typename T>
void qlinear_add(const T* a, const T* b, T* out, std::size_t count, Quantization qa, Quantization qb, Quantization qc);

// out = table[in]: QLinearConcat's per-input table, and Q(DQ(x)) between two quantizations.
using ByteTable = std::array<std::uint8_t, 256>;
template <typename T>
ByteTable requantize_table(Quantization from, Quantization to, std::int32_t lo, std::int32_t hi);
void apply_table(const std::uint8_t* in, std::uint8_t* out, std::size_t count, const ByteTable& table);
// The same over `rows` runs of `count` bytes, in_stride and out_stride bytes apart (one input of a
// concatenation, its channels of every pixel).
void apply_table_rows(const std::uint8_t* in, std::size_t in_stride, std::uint8_t* out, std::size_t out_stride,
                      std::size_t rows, std::size_t count, const ByteTable& table);

// The pools compute output rows [row_begin, row_end) of n * output.h rows (for threads to split).
// T: std::uint8_t, std::int8_t or float.
template <typename T>
void max_pool_nhwc(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                   std::int64_t row_begin, std::int64_t row_end);

// The taps of an output pixel's window that fall inside the image, with dilation: kernel rows
// [kh0, kh1) at input rows h + kh * dilation_h, kernel columns [kw0, kw1) at w + kw * dilation_w.
struct WindowTaps {
  std::int64_t h = 0, w = 0, kh0 = 0, kh1 = 0, kw0 = 0, kw1 = 0;
};
inline WindowTaps window_taps(const PoolWindow& window, ImageShape input, std::int64_t oh, std::int64_t ow) {
  const auto taps = [](std::int64_t first, std::int64_t dilation, std::int64_t kernel, std::int64_t size) {
    // The first kernel index at or after row 0, and the first at or after row `size`.
    const auto at_least = [&](std::int64_t row) { return row <= first ? 0 : (row - first + dilation - 1) / dilation; };
    return std::pair{std::min(at_least(0), kernel), std::min(at_least(size), kernel)};
  };
  WindowTaps t;
  t.h = oh * window.stride_h - window.pad_top;
  t.w = ow * window.stride_w - window.pad_left;
  std::tie(t.kh0, t.kh1) = taps(t.h, window.dilation_h, window.kernel_h, input.h);
  std::tie(t.kw0, t.kw1) = taps(t.w, window.dilation_w, window.kernel_w, input.w);
  return t;
}

// The part of an output pixel's pooling window inside the image, rows [h0, h1) and columns
// [w0, w1) (no dilation), and an average pool's divisor for it as onnxruntime computes it.
struct WindowInImage {
  std::int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  std::int64_t average_count(const PoolWindow& window) const {
    return window.count_include_pad ? window.kernel_h * window.kernel_w : std::max<std::int64_t>((h1 - h0) * (w1 - w0), 0);
  }
};
inline WindowInImage window_in_image(const PoolWindow& window, ImageShape input, std::int64_t oh, std::int64_t ow) {
  const std::int64_t h = oh * window.stride_h - window.pad_top, w = ow * window.stride_w - window.pad_left;
  return {std::max<std::int64_t>(h, 0), std::min(h + window.kernel_h, input.h), std::max<std::int64_t>(w, 0),
          std::min(w + window.kernel_w, input.w)};
}

// An average pool's two divisions per element, by the window's count and by y_scale, planned once
// per pool: by_count[k] divides by k (by_count[0] by zero, as onnxruntime does for a window wholly
// in the padding). Each is a checked reciprocal iteration where the sums stay in its range.
struct AveragePoolDivisors {
  std::vector<ReciprocalDivisor> by_count;
  ReciprocalDivisor by_scale;
};
AveragePoolDivisors average_pool_divisors(const PoolWindow& window, Quantization qx, Quantization qy);

// QLinearAveragePool in onnxruntime's arithmetic: every input element dequantized to float, each
// window's floats added in window order, divided by the count, then by y_scale, rounded half to even
// and saturated. onnxruntime dequantizes the whole input first; here the channels go in blocks of
// kAveragePoolBlock and each block keeps only the window's input rows, dequantized, in a ring in
// `scratch` (average_pool_scratch_floats() floats per thread), so the floats stay in the first
// cache levels and each input element is still dequantized once per row range.
inline constexpr std::size_t kAveragePoolBlock = 64;
std::size_t average_pool_scratch_floats(ImageShape input, const PoolWindow& window);
template <typename T>
void average_pool_nhwc(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                       Quantization qx, Quantization qy, const AveragePoolDivisors& divisors, float* scratch,
                       std::int64_t row_begin, std::int64_t row_end);
// The same with its own divisors and scratch (for callers outside a compiled model).
template <typename T>
void average_pool_nhwc(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                       Quantization qx, Quantization qy, std::int64_t row_begin, std::int64_t row_end);

// One output row of an average pool over one block of channels, what each vector path computes:
// `rows` are the window's input rows inside the image, dequantized, kAveragePoolBlock floats per
// pixel (the block's `channels` first).
template <typename T>
struct AveragePoolRow {
  const float* const* rows = nullptr;
  std::int64_t row_count = 0;
  std::int64_t height = 0;  // h1 - h0 of WindowInImage (negative for a window below the image)
  std::int64_t input_w = 0, output_w = 0;
  const PoolWindow* window = nullptr;
  const AveragePoolDivisors* divisors = nullptr;
  Quantization qy;
  std::size_t channels = 0;      // of the block, at most kAveragePoolBlock
  std::size_t pixel_stride = 0;  // the output's channels
  T* out = nullptr;              // the row's first pixel, at the block's first channel
};
// The divisor for WindowInImage::average_count(); a window wholly outside the image on both axes
// gives a positive product beyond the area (as onnxruntime's divisor does), which divides for real.
inline const ReciprocalDivisor& average_pool_divisor(const AveragePoolDivisors& d, std::int64_t count,
                                                     ReciprocalDivisor& beyond) {
  if (count >= 0 && static_cast<std::size_t>(count) < d.by_count.size()) return d.by_count[static_cast<std::size_t>(count)];
  beyond = ReciprocalDivisor{static_cast<float>(count), 1.0f / static_cast<float>(count), false};
  return beyond;
}

// AveragePool and GlobalAveragePool on float tensors (outside quantized units): float sums in
// window order, divided by ONNX's count.
void float_average_pool_nhwc(const float* in, ImageShape input, float* out, ImageShape output, const PoolWindow& window,
                             std::int64_t row_begin, std::int64_t row_end);
void float_global_average_pool_nhwc(const float* in, ImageShape input, float* out);


// QLinearGlobalAveragePool (and an AveragePool whose window is the whole image): integer sums, one
// float multiply by x_scale / (y_scale * H * W), rounded half to even.
template <typename T>
void global_average_pool_nhwc(const T* in, ImageShape input, T* out, Quantization qx, Quantization qy);

// com.microsoft QLinearSoftmax over rows of `row` elements (its exp table and float sums).
template <typename T>
void qlinear_softmax(const T* in, T* out, std::size_t rows, std::size_t row, Quantization qx, Quantization qy);

// Float Softmax over rows.
void softmax(const float* in, float* out, std::size_t rows, std::size_t row);

// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point), a true division.
template <typename T>
void quantize(const float* in, T* out, std::size_t count, Quantization q);
// The same from NCHW into NHWC, pixels [pixel_begin, pixel_end) of n * h * w.
template <typename T>
void quantize_nchw_to_nhwc(const float* in, T* out, ImageShape shape, Quantization q, std::int64_t pixel_begin,
                           std::int64_t pixel_end);
// DequantizeLinear: float(x - zero_point) * scale.
template <typename T>
void dequantize(const T* in, float* out, std::size_t count, Quantization q);
template <>
void dequantize<std::uint8_t>(const std::uint8_t*, float*, std::size_t, Quantization);
template <>
void dequantize<std::int8_t>(const std::int8_t*, float*, std::size_t, Quantization);

}  // namespace qtune::executor
