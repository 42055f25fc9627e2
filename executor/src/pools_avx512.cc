// The quantized pools on AVX-512, each window reduced in registers 64 channels (256 for the max
// pool's bytes) at a time; the generic loops in quantized_ops.cc kept the running values in memory.
// The average pool's rows (quantized_ops.h's ring of dequantized input rows) add in onnxruntime's
// order (rows, then columns), then divide twice (by the count, by y_scale) as reciprocal iterations
// where those divisors were checked exact (reciprocal_division.h), else for real.
#include "pools_avx512.h"

#include "x86_intrinsics.h"

#if defined(__x86_64__)
QTUNE_GCC105593_BEGIN

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

namespace qtune::executor {
namespace {

#define QTUNE_AVX512_POOL __attribute__((target("avx512f,avx512bw,avx512vl")))

// The divisions of a vector of sums: a checked reciprocal iteration or a true division.
struct VectorDivisor {
  __m512 divisor, reciprocal;
  bool exact;
  QTUNE_AVX512_POOL explicit VectorDivisor(const ReciprocalDivisor& d)
      : divisor(_mm512_set1_ps(d.divisor)), reciprocal(_mm512_set1_ps(d.reciprocal)), exact(d.exact) {}
  template <bool kExact>
  QTUNE_AVX512_POOL [[gnu::always_inline]] __m512 divide(__m512 a) const {
    if constexpr (!kExact) return _mm512_div_ps(a, divisor);
    const __m512 q = _mm512_mul_ps(a, reciprocal);
    return _mm512_fmadd_ps(_mm512_fnmadd_ps(q, divisor, a), reciprocal, q);
  }
};

template <typename T>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline __m512i widen(__m128i bytes) {
  if constexpr (std::is_signed_v<T>) return _mm512_cvtepi8_epi32(bytes);
  else return _mm512_cvtepu8_epi32(bytes);
}

template <typename T>
QTUNE_AVX512_POOL void dequantize_row(const T* in, std::size_t pixel_stride, std::int64_t width, std::size_t channels,
                                      Quantization qx, float* ring) {
  const __m512i zero_point = _mm512_set1_epi32(qx.zero_point);
  const __m512 scale = _mm512_set1_ps(qx.scale);
  const std::size_t vectors = (channels + 15) / 16;
  const auto last = static_cast<__mmask16>(channels % 16 == 0 ? 0xFFFF : (1u << (channels % 16)) - 1);
  for (std::int64_t w = 0; w < width; ++w, in += pixel_stride, ring += kAveragePoolBlock)
    for (std::size_t v = 0; v < vectors; ++v) {
      const __m128i bytes = _mm_maskz_loadu_epi8(v + 1 < vectors ? __mmask16{0xFFFF} : last, in + 16 * v);
      const __m512i q = _mm512_sub_epi32(widen<T>(bytes), zero_point);
      _mm512_storeu_ps(ring + 16 * v, _mm512_mul_ps(_mm512_cvtepi32_ps(q), scale));
    }
}

// fl(fl(sum / count) / y_scale) + zY, rounded half to even and saturated: min(hi, v) keeps a
// NaN (a window wholly in the padding), whose integer indefinite the saturating packs send to the
// minimum as they do every value below it. Vectors past kVectors are zero.
template <int kVectors, bool kExact>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void finish(const __m512 (&sums)[kVectors], const VectorDivisor& by_count,
                                                             const VectorDivisor& by_scale, __m512 zero_point, __m512 hi,
                                                             __m512i (&q)[4]) {
  for (int v = 0; v < 4; ++v)
    q[v] = v < kVectors ? _mm512_cvtps_epi32(_mm512_min_ps(
                              hi, _mm512_add_ps(by_scale.divide<kExact>(by_count.divide<kExact>(sums[v])), zero_point)))
                        : _mm512_setzero_si512();
}

// A window's sums in onnxruntime's order (rows, then columns) from its first value: onnxruntime
// adds from 0.0f, which changes only the sign of a zero sum, and the division and the zero point's
// addition erase that.
template <int kVectors>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void add_window(const float* const* rows, std::size_t offset,
                                                                 std::int64_t row_count, std::int64_t columns,
                                                                 __m512 (&sums)[kVectors]) {
  for (int v = 0; v < kVectors; ++v) sums[v] = _mm512_loadu_ps(rows[0] + offset + 16 * v);
  for (std::int64_t h = 0; h < row_count; ++h) {
    const float* x = rows[h] + offset;
    for (std::int64_t w = h == 0 ? 1 : 0; w < columns; ++w)
      for (int v = 0; v < kVectors; ++v)
        sums[v] = _mm512_add_ps(sums[v], _mm512_loadu_ps(x + static_cast<std::size_t>(w) * kAveragePoolBlock + 16 * v));
  }
}

// kVectors vectors of 16 channels, stored under `channels` (the block's).
template <typename T, int kVectors>
QTUNE_AVX512_POOL void average_row(const AveragePoolRow<T>& r, __mmask64 channels) {
  const PoolWindow& window = *r.window;
  const VectorDivisor by_scale(r.divisors->by_scale);
  const __m512 zero_point = _mm512_set1_ps(static_cast<float>(r.qy.zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::max()));
  // The packs leave each 128-bit lane holding four dwords of each vector: back into vector order.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (std::int64_t ow = 0; ow < r.output_w; ++ow) {
    const std::int64_t left = ow * window.stride_w - window.pad_left;
    const std::int64_t w0 = std::max<std::int64_t>(left, 0), w1 = std::min(left + window.kernel_w, r.input_w);
    ReciprocalDivisor beyond;
    const VectorDivisor by_count(
        average_pool_divisor(*r.divisors, WindowInImage{0, r.height, w0, w1}.average_count(window), beyond));
    __m512 sums[kVectors];
    for (int v = 0; v < kVectors; ++v) sums[v] = _mm512_setzero_ps();
    if (r.row_count > 0 && w1 > w0) {
      const std::size_t offset = static_cast<std::size_t>(w0) * kAveragePoolBlock;
      // The 3x3 window inside the image, unrolled: most pixels of a network's pools.
      if (r.row_count == 3 && w1 - w0 == 3) add_window<kVectors>(r.rows, offset, 3, 3, sums);
      else add_window<kVectors>(r.rows, offset, r.row_count, w1 - w0, sums);
    }
    // One test per pixel, not one per vector and division.
    __m512i q[4];
    if (by_count.exact && by_scale.exact) finish<kVectors, true>(sums, by_count, by_scale, zero_point, hi, q);
    else finish<kVectors, false>(sums, by_count, by_scale, zero_point, hi, q);
    const __m512i words01 = _mm512_packs_epi32(q[0], q[1]), words23 = _mm512_packs_epi32(q[2], q[3]);
    const __m512i bytes = std::is_signed_v<T> ? _mm512_packs_epi16(words01, words23) : _mm512_packus_epi16(words01, words23);
    _mm512_mask_storeu_epi8(r.out + static_cast<std::size_t>(ow) * r.pixel_stride, channels,
                            _mm512_permutexvar_epi32(order, bytes));
  }
}

// Bytes: vpmaxub / vpmaxsb.
template <typename T>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline __m512i byte_max(__m512i a, __m512i b) {
  if constexpr (std::is_signed_v<T>) return _mm512_max_epi8(a, b);
  else return _mm512_max_epu8(a, b);
}

// The window's taps from `first`, rows `row_step` and columns `column_step` elements apart.
template <typename T, int kVectors>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void window_max(const T* first, std::size_t row_step,
                                                                 std::size_t column_step, std::int64_t rows,
                                                                 std::int64_t columns, __mmask64 tail, T* y) {
  __m512i best[kVectors];
  for (int v = 0; v < kVectors; ++v) best[v] = _mm512_set1_epi8(static_cast<char>(std::numeric_limits<T>::lowest()));
  for (std::int64_t kh = 0; kh < rows; ++kh, first += row_step) {
    const T* x = first;
    for (std::int64_t kw = 0; kw < columns; ++kw, x += column_step)
      for (int v = 0; v < kVectors; ++v)
        best[v] = byte_max<T>(best[v], v + 1 < kVectors || tail == ~__mmask64{0} ? _mm512_loadu_si512(x + 64 * v)
                                                                                 : _mm512_maskz_loadu_epi8(tail, x + 64 * v));
  }
  for (int v = 0; v + 1 < kVectors; ++v) _mm512_storeu_si512(y + 64 * v, best[v]);
  _mm512_mask_storeu_epi8(y + 64 * (kVectors - 1), tail, best[kVectors - 1]);
}

template <typename T, int kVectors>
QTUNE_AVX512_POOL [[gnu::always_inline]] inline void pixel_max(const T* first, std::size_t row_step,
                                                                std::size_t column_step, std::int64_t rows,
                                                                std::int64_t columns, __mmask64 tail, T* y) {
  // The 3x3 window inside the image, unrolled: most pixels of a network's pools.
  if (rows == 3 && columns == 3) window_max<T, kVectors>(first, row_step, column_step, 3, 3, tail, y);
  else window_max<T, kVectors>(first, row_step, column_step, rows, columns, tail, y);
}

template <typename T>
QTUNE_AVX512_POOL void max_pool(const T* in, ImageShape input, T* out, ImageShape output, const PoolWindow& window,
                                std::int64_t row_begin, std::int64_t row_end) {
  const auto c = static_cast<std::size_t>(input.c);
  const std::size_t row_step = static_cast<std::size_t>(window.dilation_h * input.w) * c;
  const std::size_t column_step = static_cast<std::size_t>(window.dilation_w) * c;
  // The column taps once per call and the row taps once per output row: window_taps' divisions
  // cost more than a pixel of few channels.
  // Per thread and kept across calls (docs/model-executor.md, "Working buffers kept across runs").
  thread_local std::vector<WindowTaps> columns;
  columns.resize(static_cast<std::size_t>(output.w));
  for (std::int64_t ow = 0; ow < output.w; ++ow) columns[static_cast<std::size_t>(ow)] = window_taps(window, input, 0, ow);
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / output.h, oh = row % output.h;
    const WindowTaps rows = window_taps(window, input, oh, 0);
    const std::int64_t first_row = rows.h + rows.kh0 * window.dilation_h, row_count = rows.kh1 - rows.kh0;
    const T* image = in + static_cast<std::size_t>(n * input.h * input.w) * c;
    for (std::int64_t ow = 0; ow < output.w; ++ow) {
      const WindowTaps& t = columns[static_cast<std::size_t>(ow)];
      const std::int64_t first_column = t.w + t.kw0 * window.dilation_w;
      // A window without taps (wholly in the padding) keeps the minimum.
      const bool taps = row_count > 0 && t.kw1 > t.kw0;
      const std::int64_t rows_in = taps ? row_count : 0, column_count = taps ? t.kw1 - t.kw0 : 0;
      const T* first = taps ? image + static_cast<std::size_t>(first_row * input.w + first_column) * c : image;
      T* y = out + static_cast<std::size_t>((n * output.h + oh) * output.w + ow) * c;
      std::size_t ch = 0;
      for (; ch + 256 <= c; ch += 256)
        pixel_max<T, 4>(first + ch, row_step, column_step, rows_in, column_count, ~__mmask64{0}, y + ch);
      for (; ch + 64 <= c; ch += 64)
        pixel_max<T, 1>(first + ch, row_step, column_step, rows_in, column_count, ~__mmask64{0}, y + ch);
      if (ch < c)
        pixel_max<T, 1>(first + ch, row_step, column_step, rows_in, column_count, (~__mmask64{0}) >> (64 - (c - ch)),
                        y + ch);
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
void dequantize_pool_row_avx512(const T* in, std::size_t pixel_stride, std::int64_t width, std::size_t channels,
                                Quantization qx, float* ring_row) {
  dequantize_row<T>(in, pixel_stride, width, channels, qx, ring_row);
}

template <typename T>
void average_pool_row_avx512(const AveragePoolRow<T>& r) {
  const __mmask64 last = r.channels >= 64 ? ~__mmask64{0} : (__mmask64{1} << r.channels) - 1;
  switch ((r.channels + 15) / 16) {
    case 1: return average_row<T, 1>(r, last);
    case 2: return average_row<T, 2>(r, last);
    case 3: return average_row<T, 3>(r, last);
    default: return average_row<T, 4>(r, last);
  }
}

#define QTUNE_POOLS_AVX512_INSTANTIATE(T)                                                                             \
  template void dequantize_pool_row_avx512<T>(const T*, std::size_t, std::int64_t, std::size_t, Quantization, float*); \
  template void average_pool_row_avx512<T>(const AveragePoolRow<T>&);
QTUNE_POOLS_AVX512_INSTANTIATE(std::uint8_t)
QTUNE_POOLS_AVX512_INSTANTIATE(std::int8_t)
#undef QTUNE_POOLS_AVX512_INSTANTIATE

}  // namespace qtune::executor
QTUNE_GCC105593_END

#endif
