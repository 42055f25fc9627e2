// The quantized pools on AVX-512 (x86 builds only; where avx512_paths()): the same results as the
// generic loops of max_pool_nhwc and average_pool_real_nhwc, element for element.
#pragma once

#include "quantized_ops.h"

#if defined(__x86_64__)
namespace qtune::executor {

template <typename T>
void max_pool_avx512(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                     std::int64_t row_begin, std::int64_t row_end);

template <typename T>
void average_pool_avx512(const float* real, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                         Quantization qy, const AveragePoolDivisors& divisors, std::int64_t row_begin,
                         std::int64_t row_end);

}  // namespace qtune::executor
#endif
