// The quantized pools on AVX-512 (x86 builds only; where avx512_paths()): the same results as the
// generic loops of max_pool_nhwc and average_pool_nhwc, element for element.
#pragma once

#include "quantized_ops.h"

#if defined(__x86_64__)
namespace qtune::executor {

template <typename T>
void max_pool_avx512(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                     std::int64_t row_begin, std::int64_t row_end);

// average_pool_nhwc's two steps on AVX-512.
template <typename T>
void dequantize_pool_row_avx512(const T* in, std::size_t pixel_stride, std::int64_t width, std::size_t channels,
                                Quantization qx, float* ring_row);
template <typename T>
void average_pool_row_avx512(const AveragePoolRow<T>& r);

}  // namespace qtune::executor
#endif
