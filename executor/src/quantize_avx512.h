// QuantizeLinear from a few NCHW planes (an image's colour channels) into NHWC bytes on AVX-512
// with byte permutes (x86 builds only; where avx512_vbmi_paths()): the same results as
// quantize_nchw_to_nhwc's generic loop, element for element.
#pragma once

#include "quantized_ops.h"

#if defined(__x86_64__)
namespace qtune::executor {

constexpr std::int64_t kQuantizeAvx512MaxChannels = 4;

// `count` pixels of one image: `channels` (<= kQuantizeAvx512MaxChannels) float planes starting at
// `in`, `plane_stride` floats apart, into count * channels NHWC bytes at `out`. Returns how many
// pixels it did (a multiple of 16), the rest left to the generic loop.
template <typename T>
std::int64_t quantize_planes_avx512(const float* in, std::int64_t plane_stride, std::int64_t channels, T* out,
                                    std::int64_t count, Quantization q);

}  // namespace qtune::executor
#endif
