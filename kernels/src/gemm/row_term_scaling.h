// Row terms of per-tensor weights as the microkernels take them (GemmUkernelArgs::zb_uniform): each
// row's -rowsum(A') times the one weight zero point, wrapping like the accumulators.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qtune::detail {

// dst[i] = src[i] * zb (mod 2^32) for i < count; dst == src is allowed. On x86 GCC builds a clone
// for AVX-512 does 16 at a time: the baseline x86-64 build has no 32-bit vector multiply
// (SSE4.1's pmulld) and emulates it with two pmuludq and shuffles per 4 terms, a visible share of a
// layer whose rows are short (one term per 32-byte row in MobileNetV2's 112x112x32 -> 16
// projection: docs/measurements.md, "GEMM driver").
void scale_row_terms(std::int32_t* dst, const std::int32_t* src, std::size_t count, std::int32_t zb);

}  // namespace qtune::detail
