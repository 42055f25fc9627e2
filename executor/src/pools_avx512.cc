// The quantized pools on AVX-512, each window reduced in registers 64 channels (256 for the max
// pool's bytes) at a time; the generic loops in quantized_ops.cc kept the running values in memory.
// The average pool adds in onnxruntime's order (rows, then columns, from 0.0f), then divides twice
// (by the count, by y_scale) as reciprocal iterations where those divisors were checked exact
// (reciprocal_division.h), else for real.
#include "pools_avx512.h"

#include "x86_intrinsics.h"

#if defined(__x86_64__)
QTUNE_GCC105593_BEGIN

#include <algorithm>
#include <limits>
#include <type_traits>

namespace qtune::executor {
namespace {

#define QTUNE_AVX512_POOL __attribute__((target("avx512f,avx512bw,avx512vl")))

QTUNE_AVX512_POOL [[gnu::always_inline]] inline __m512 divide(__m512 a, const ReciprocalDivisor& d) {
  if (!d.exact) return _mm512_div_ps(a, _mm512_set1_ps(d.divisor));
  const __m512 y = _mm512_set1_ps(d.reciprocal);
  const __m512 q = _mm512_mul_ps(a, y);
  return _mm512_fmadd_ps(_mm512_fnmadd_ps(q, _mm512_set1_ps(d.divisor), a), y, q);
}

template <typename T>
struct PoolFinish {
  __m512 zero_point, lo, hi;
  const ReciprocalDivisor* by_scale;

  // fl(fl(sum / count) / y_scale) + zY, clamped (NaN to the minimum, as max(NaN, lo) gives lo),
  // rounded half to even; the clamp makes the narrowing exact.
  QTUNE_AVX512_POOL [[gnu::always_inline]] __m128i bytes(__m512 sum, const ReciprocalDivisor& by_count) const {
    __m512 v = _mm512_add_ps(divide(divide(sum, by_count), *by_scale), zero_point);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    return _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v));
  }
};

template <int kVectors>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void window_sums(const float* real, std::size_t row_stride,
                                                                  std::size_t pixel_stride, std::int64_t rows,
                                                                  std::int64_t columns, __mmask16 tail, __m512* sums) {
  for (int v = 0; v < kVectors; ++v) sums[v] = _mm512_setzero_ps();
  for (std::int64_t h = 0; h < rows; ++h, real += row_stride) {
    const float* x = real;
    for (std::int64_t w = 0; w < columns; ++w, x += pixel_stride)
      for (int v = 0; v < kVectors; ++v)
        sums[v] = _mm512_add_ps(sums[v], v + 1 < kVectors || tail == 0xFFFF ? _mm512_loadu_ps(x + 16 * v)
                                                                          : _mm512_maskz_loadu_ps(tail, x + 16 * v));
  }
}

template <typename T>
QTUNE_AVX512_POOL void average_pool(const float* real, ImageShape input, T* out, ImageShape output,
                                    const PoolWindow& window, Quantization qy, const AveragePoolDivisors& divisors,
                                    std::int64_t row_begin, std::int64_t row_end) {
  const auto c = static_cast<std::size_t>(input.c);
  const PoolFinish<T> finish{_mm512_set1_ps(static_cast<float>(qy.zero_point)),
                             _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::lowest())),
                             _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::max())), &divisors.by_scale};
  const std::size_t row_stride = static_cast<std::size_t>(input.w) * c;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / output.h, oh = row % output.h;
    for (std::int64_t ow = 0; ow < output.w; ++ow) {
      const WindowInImage e = window_in_image(window, input, oh, ow);
      const std::int64_t rows = std::max<std::int64_t>(e.h1 - e.h0, 0), columns = std::max<std::int64_t>(e.w1 - e.w0, 0);
      // A window wholly outside the image on both axes gives a positive product beyond the area
      // (as onnxruntime's divisor does); it divides for real.
      const auto count = static_cast<std::size_t>(e.average_count(window));
      const ReciprocalDivisor by_count = count < divisors.by_count.size()
                                             ? divisors.by_count[count]
                                             : ReciprocalDivisor{static_cast<float>(count), 1.0f / static_cast<float>(count), false};
      const float* first = real + static_cast<std::size_t>((n * input.h + e.h0) * input.w + e.w0) * c;
      T* y = out + static_cast<std::size_t>((n * output.h + oh) * output.w + ow) * c;
      std::size_t ch = 0;
      __m512 sums[4];
      for (; ch + 64 <= c; ch += 64) {
        window_sums<4>(first + ch, row_stride, c, rows, columns, 0xFFFF, sums);
        for (int v = 0; v < 4; ++v)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(y + ch + 16 * v), finish.bytes(sums[v], by_count));
      }
      for (; ch + 16 <= c; ch += 16) {
        window_sums<1>(first + ch, row_stride, c, rows, columns, 0xFFFF, sums);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + ch), finish.bytes(sums[0], by_count));
      }
      if (ch < c) {
        const auto tail = static_cast<__mmask16>((1u << (c - ch)) - 1);
        window_sums<1>(first + ch, row_stride, c, rows, columns, tail, sums);
        _mm_mask_storeu_epi8(y + ch, tail, finish.bytes(sums[0], by_count));
      }
    }
  }
}

// Bytes: vpmaxub / vpmaxsb.
template <typename T>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline __m512i byte_max(__m512i a, __m512i b) {
  if constexpr (std::is_signed_v<T>) return _mm512_max_epi8(a, b);
  else return _mm512_max_epu8(a, b);
}

template <typename T, int kVectors>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void window_max(const T* in, ImageShape input, const PoolWindow& window,
                                                                 std::int64_t n, std::int64_t oh, std::int64_t ow,
                                                                 std::size_t ch, __mmask64 tail, T* y) {
  const auto c = static_cast<std::size_t>(input.c);
  __m512i best[kVectors];
  for (int v = 0; v < kVectors; ++v) best[v] = _mm512_set1_epi8(static_cast<char>(std::numeric_limits<T>::lowest()));
  const WindowTaps t = window_taps(window, input, oh, ow);
  for (std::int64_t kh = t.kh0; kh < t.kh1; ++kh)
    for (std::int64_t kw = t.kw0; kw < t.kw1; ++kw) {
      const std::int64_t h = t.h + kh * window.dilation_h, w = t.w + kw * window.dilation_w;
      const T* x = in + static_cast<std::size_t>((n * input.h + h) * input.w + w) * c + ch;
      for (int v = 0; v < kVectors; ++v)
        best[v] = byte_max<T>(best[v], v + 1 < kVectors || tail == ~__mmask64{0} ? _mm512_loadu_si512(x + 64 * v)
                                                                                 : _mm512_maskz_loadu_epi8(tail, x + 64 * v));
    }
  for (int v = 0; v + 1 < kVectors; ++v) _mm512_storeu_si512(y + 64 * v, best[v]);
  _mm512_mask_storeu_epi8(y + 64 * (kVectors - 1), tail, best[kVectors - 1]);
}

template <typename T>
QTUNE_AVX512_POOL void max_pool(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                                std::int64_t row_begin, std::int64_t row_end) {
  const auto c = static_cast<std::size_t>(input.c);
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / output.h, oh = row % output.h;
    for (std::int64_t ow = 0; ow < output.w; ++ow) {
      T* y = out + static_cast<std::size_t>((n * output.h + oh) * output.w + ow) * c;
      std::size_t ch = 0;
      for (; ch + 256 <= c; ch += 256) window_max<T, 4>(in, input, window, n, oh, ow, ch, ~__mmask64{0}, y + ch);
      for (; ch + 64 <= c; ch += 64) window_max<T, 1>(in, input, window, n, oh, ow, ch, ~__mmask64{0}, y + ch);
      if (ch < c) window_max<T, 1>(in, input, window, n, oh, ow, ch, (~__mmask64{0}) >> (64 - (c - ch)), y + ch);
    }
  }
}

}  // namespace

template <typename T>
void max_pool_avx512(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                     std::int64_t row_begin, std::int64_t row_end) {
  max_pool<T>(in, input, out, output, window, row_begin, row_end);
}
template void max_pool_avx512<std::uint8_t>(const std::uint8_t*, ImageShape, std::uint8_t*, ImageShape,
                                            const PoolWindow&, std::int64_t, std::int64_t);
template void max_pool_avx512<std::int8_t>(const std::int8_t*, ImageShape, std::int8_t*, ImageShape, const PoolWindow&,
                                           std::int64_t, std::int64_t);

template <typename T>
void average_pool_avx512(const float* real, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                         Quantization qy, const AveragePoolDivisors& divisors, std::int64_t row_begin,
                         std::int64_t row_end) {
  average_pool<T>(real, input, out, output, window, qy, divisors, row_begin, row_end);
}
template void average_pool_avx512<std::uint8_t>(const float*, ImageShape, std::uint8_t*, ImageShape, const PoolWindow&,
                                                Quantization, const AveragePoolDivisors&, std::int64_t, std::int64_t);
template void average_pool_avx512<std::int8_t>(const float*, ImageShape, std::int8_t*, ImageShape, const PoolWindow&,
                                               Quantization, const AveragePoolDivisors&, std::int64_t, std::int64_t);

}  // namespace qtune::executor
QTUNE_GCC105593_END

#endif
