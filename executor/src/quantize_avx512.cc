// 16 pixels a step: each plane's 16 floats divided by the scale (the reciprocal iteration where
// the scale was checked exact and every lane is within its range, else a true division), clamped,
// rounded half to even and offset as quantize_run does, then one vpermb interleaves the planes'
// bytes into 16 * C consecutive NHWC bytes. The generic loop stored each byte C apart.
#include "quantize_avx512.h"

#include "x86_intrinsics.h"

#if defined(__x86_64__)
QTUNE_GCC105593_BEGIN

#include <algorithm>
#include <limits>

namespace qtune::executor {
namespace {

// The model's input comes from memory (a run's other steps pass far more than the caches hold
// between two runs), and three or four plane streams with this little arithmetic per byte keep too
// few misses in flight: each plane is prefetched this many bytes ahead (docs/model-executor.md).
constexpr std::size_t kPrefetchAhead = 2048;

#define QTUNE_AVX512_QUANTIZE __attribute__((target("avx512f,avx512bw,avx512vbmi")))

template <typename T>
struct QuantizeLanes {
  __m512 divisor, reciprocal, lo, hi, smallest, largest;
  __m512i zero_point;
  bool iterate;

  QTUNE_AVX512_QUANTIZE [[gnu::always_inline]] __m128i bytes(__m512 x) const {
    __m512 v;
    const __m512 magnitude = _mm512_abs_ps(x);
    // Zero and |x| in [2^-86, 2^80] (reciprocal_division.h's range) iterate; NaN and the rest divide.
    const __mmask16 in_range = _mm512_cmp_ps_mask(magnitude, largest, _CMP_LE_OQ) &
                               (_mm512_cmp_ps_mask(magnitude, smallest, _CMP_GE_OQ) |
                                _mm512_cmp_ps_mask(magnitude, _mm512_setzero_ps(), _CMP_EQ_OQ));
    if (iterate && in_range == 0xFFFF) {
      const __m512 quotient = _mm512_mul_ps(x, reciprocal);
      v = _mm512_fmadd_ps(_mm512_fnmadd_ps(quotient, divisor, x), reciprocal, quotient);
    } else {
      v = _mm512_div_ps(x, divisor);
    }
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);  // max(NaN, lo) is lo, as onnxruntime's clamp gives
    return _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v), zero_point));
  }
};

template <typename T>
QTUNE_AVX512_QUANTIZE std::int64_t quantize_planes(const float* in, std::int64_t plane_stride, std::int64_t channels,
                                                   T* out, std::int64_t count, Quantization q) {
  const ReciprocalDivisor d = reciprocal_divisor(q.scale);
  const QuantizeLanes<T> lanes{_mm512_set1_ps(q.scale),
                               _mm512_set1_ps(d.reciprocal),
                               _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::lowest() - q.zero_point)),
                               _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::max() - q.zero_point)),
                               _mm512_set1_ps(0x1p-86f),
                               _mm512_set1_ps(0x1p80f),
                               _mm512_set1_epi32(q.zero_point),
                               d.exact};
  // Output byte j of a step is pixel j / C of plane j % C, which sits at byte 16 * (j % C) + j / C
  // of the planes' bytes placed side by side.
  alignas(64) std::uint8_t order[64] = {};
  for (std::int64_t j = 0; j < 16 * channels; ++j) order[j] = static_cast<std::uint8_t>(16 * (j % channels) + j / channels);
  const __m512i interleave = _mm512_load_si512(order);
  const __mmask64 step_bytes = (~__mmask64{0}) >> (64 - 16 * channels);
  std::int64_t p = 0;
  for (; p + 16 <= count; p += 16) {
    __m128i plane[4] = {};
    for (std::int64_t c = 0; c < channels; ++c) {
      __builtin_prefetch(reinterpret_cast<const char*>(in + c * plane_stride + p) + kPrefetchAhead);
      plane[c] = lanes.bytes(_mm512_loadu_ps(in + c * plane_stride + p));
    }
    const __m512i planes = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(plane[0]), plane[1], 1), plane[2], 2), plane[3], 3);
    _mm512_mask_storeu_epi8(out + p * channels, step_bytes, _mm512_permutexvar_epi8(interleave, planes));
  }
  return p;
}

}  // namespace

template <typename T>
std::int64_t quantize_planes_avx512(const float* in, std::int64_t plane_stride, std::int64_t channels, T* out,
                                    std::int64_t count, Quantization q) {
  return quantize_planes<T>(in, plane_stride, channels, out, count, q);
}
template std::int64_t quantize_planes_avx512<std::uint8_t>(const float*, std::int64_t, std::int64_t, std::uint8_t*,
                                                           std::int64_t, Quantization);
template std::int64_t quantize_planes_avx512<std::int8_t>(const float*, std::int64_t, std::int64_t, std::int8_t*,
                                                          std::int64_t, Quantization);

}  // namespace qtune::executor
QTUNE_GCC105593_END
#endif
