// The executor's operations other than convolutions and matrix products, each in onnxruntime's
// arithmetic (docs/model-executor.md): images are NHWC, other tensors in ONNX's order. T is
// std::uint8_t or std::int8_t.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "qtune/onnx_import/model_graph.h"

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

// The pools compute output rows [row_begin, row_end) of n * output.h rows (for threads to split).
template <typename T>
void max_pool_nhwc(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                   std::int64_t row_begin, std::int64_t row_end);

template <>
void max_pool_nhwc<std::uint8_t>(const std::uint8_t*, ImageShape, std::uint8_t*, ImageShape, const PoolWindow&, std::int64_t,
                                 std::int64_t);
template <>
void max_pool_nhwc<std::int8_t>(const std::int8_t*, ImageShape, std::int8_t*, ImageShape, const PoolWindow&, std::int64_t,
                                std::int64_t);
template <>
void max_pool_nhwc<float>(const float*, ImageShape, float*, ImageShape, const PoolWindow&, std::int64_t, std::int64_t);

// QLinearAveragePool's float path (onnxruntime's order of additions, its divisor, true division).
template <typename T>
void average_pool_nhwc(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                       Quantization qx, Quantization qy, std::int64_t row_begin, std::int64_t row_end);
// The same in onnxruntime's two passes: `real` is the whole input dequantized (dequantize()), each
// window's floats are then summed in order; what the executor runs, the dequantization once per
// element instead of once per window it falls in.
template <typename T>
void average_pool_real_nhwc(const float* real, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                            Quantization qy, std::int64_t row_begin, std::int64_t row_end);

// AveragePool and GlobalAveragePool on float tensors (outside quantized units): float sums in
// window order, divided by ONNX's count.
void float_average_pool_nhwc(const float* in, ImageShape input, float* out, ImageShape output, const PoolWindow& window,
                             std::int64_t row_begin, std::int64_t row_end);
void float_global_average_pool_nhwc(const float* in, ImageShape input, float* out);

template <>
void average_pool_real_nhwc<std::uint8_t>(const float*, ImageShape, std::uint8_t*, ImageShape, const PoolWindow&,
                                          Quantization, std::int64_t, std::int64_t);
template <>
void average_pool_real_nhwc<std::int8_t>(const float*, ImageShape, std::int8_t*, ImageShape, const PoolWindow&,
                                         Quantization, std::int64_t, std::int64_t);

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
