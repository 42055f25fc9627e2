#include "quantized_ops.h"

#include "pools_avx512.h"
#include "quantize_avx512.h"
#include "vector_paths.h"
#include "x86_intrinsics.h"
#include "qtune/kernels/target_clones.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>


namespace qtune::executor {
namespace {

template <typename T>
constexpr std::int32_t lowest() {
  return std::numeric_limits<T>::lowest();
}
template <typename T>
constexpr std::int32_t highest() {
  return std::numeric_limits<T>::max();
}

// cvtps2dq: round half to even under the default rounding mode; NaN and values outside int32
// become INT_MIN (the "integer indefinite" value), which the saturation then sends to the minimum.
std::int32_t convert_rne(float v) {
  if (!(v > -2147483648.0f && v < 2147483648.0f)) return INT_MIN;
  return static_cast<std::int32_t>(std::nearbyint(v));
}

// Round half to even of a float already clamped to a small range: adding and subtracting 1.5 * 2^23
// leaves the integer the default rounding mode picks (exact for |v| < 2^22), and vectorizes.
inline float round_small(float v) {
  constexpr float magic = 12582912.0f;
  return (v + magic) - magic;
}

template <typename T>
T saturate(std::int32_t v) {
  return static_cast<T>(std::clamp(v, lowest<T>(), highest<T>()));
}

// saturate(round half to even(v)) without a libm call or a branch, so that loops of it vectorize:
// rounding is monotonic and the bounds are integers, so clamping first (NaN to the minimum, as
// cvtps2dq's integer indefinite then saturates) gives the same integer.
template <typename T>
T round_saturate(float v) {
  constexpr float lo = static_cast<float>(lowest<T>()), hi = static_cast<float>(highest<T>());
  v = v >= lo ? v : lo;
  v = v <= hi ? v : hi;
  return static_cast<T>(static_cast<std::int32_t>(round_small(v)));
}

struct AddConstants {
  float ra, rb, fixed;
};

AddConstants add_constants(Quantization qa, Quantization qb, Quantization qc) {
  AddConstants k;
  k.ra = qa.scale / qc.scale;
  k.rb = qb.scale / qc.scale;
  const float folded = k.ra * static_cast<float>(qa.zero_point) + k.rb * static_cast<float>(qb.zero_point);
  k.fixed = static_cast<float>(qc.zero_point) - folded;
  return k;
}

// Whether QLinearAdd takes onnxruntime's AVX2 order (two fused multiply-adds), as every x86 CPU
// with AVX2 and FMA runs it, or its SSE2 order.
bool adds_in_fma_order() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
#else
  // Not x86 (aarch64): onnxruntime x64's AVX2 order all the same, the outputs the executor is held
  // to (std::fma is one instruction there); onnxruntime arm64's fixed point is not reproduced.
  return true;
#endif
}

#if defined(__x86_64__)
template <typename T>
__attribute__((target("avx2,fma"))) std::size_t qlinear_add_avx2(const T* a, const T* b, T* out, std::size_t count,
                                                                  const AddConstants& k) {
  const __m256 ra = _mm256_set1_ps(k.ra), rb = _mm256_set1_ps(k.rb), fixed = _mm256_set1_ps(k.fixed);
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i a8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i));
    const __m128i b8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i));
    const __m256i a32 = std::is_signed_v<T> ? _mm256_cvtepi8_epi32(a8) : _mm256_cvtepu8_epi32(a8);
    const __m256i b32 = std::is_signed_v<T> ? _mm256_cvtepi8_epi32(b8) : _mm256_cvtepu8_epi32(b8);
    const __m256 t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(b32), rb, fixed);
    const __m256 v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a32), ra, t);
    // int32 -> int16 -> 8 bits, saturating at each narrowing as onnxruntime's packs do.
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(_mm256_cvtps_epi32(v), _mm256_setzero_si256()), 0x08);
    const __m128i half = _mm256_castsi256_si128(words);
    const __m128i bytes = std::is_signed_v<T> ? _mm_packs_epi16(half, half) : _mm_packus_epi16(half, half);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), bytes);
  }
  return i;
}

// The same arithmetic 16 lanes at a time (fused multiply-adds round once at any width), 64 per
// step: the four vectors' int32 results narrowed by two saturating packs (int32 -> int16 -> 8 bits,
// onnxruntime's own narrowing) and one permutation back to element order, where a clamp and a
// truncating narrow per vector took five more instructions on the two ports AVX-512 shares.
QTUNE_GCC105593_BEGIN
template <typename T>
__attribute__((target("avx512f,avx512bw"))) [[gnu::always_inline]] inline __m512i add_sums_avx512(const T* a, const T* b,
                                                                                                   __m512 ra, __m512 rb,
                                                                                                   __m512 fixed) {
  const __m128i a8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i b8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  const __m512i a32 = std::is_signed_v<T> ? _mm512_cvtepi8_epi32(a8) : _mm512_cvtepu8_epi32(a8);
  const __m512i b32 = std::is_signed_v<T> ? _mm512_cvtepi8_epi32(b8) : _mm512_cvtepu8_epi32(b8);
  const __m512 t = _mm512_fmadd_ps(_mm512_cvtepi32_ps(b32), rb, fixed);
  return _mm512_cvtps_epi32(_mm512_fmadd_ps(_mm512_cvtepi32_ps(a32), ra, t));
}

template <typename T>
__attribute__((target("avx512f,avx512bw"))) std::size_t qlinear_add_avx512(const T* a, const T* b, T* out,
                                                                            std::size_t count, const AddConstants& k) {
  const __m512 ra = _mm512_set1_ps(k.ra), rb = _mm512_set1_ps(k.rb), fixed = _mm512_set1_ps(k.fixed);
  // After the packs, 128-bit lane L holds elements 4L..4L+3 of vectors 0, 1, 2, 3 in its four
  // dwords: dword 4L + q goes to 4q + L.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  std::size_t i = 0;
  for (; i + 64 <= count; i += 64) {
    const __m512i words01 = _mm512_packs_epi32(add_sums_avx512(a + i, b + i, ra, rb, fixed),
                                               add_sums_avx512(a + i + 16, b + i + 16, ra, rb, fixed));
    const __m512i words23 = _mm512_packs_epi32(add_sums_avx512(a + i + 32, b + i + 32, ra, rb, fixed),
                                               add_sums_avx512(a + i + 48, b + i + 48, ra, rb, fixed));
    const __m512i bytes = std::is_signed_v<T> ? _mm512_packs_epi16(words01, words23) : _mm512_packus_epi16(words01, words23);
    _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(order, bytes));
  }
  const __m512i lo = _mm512_set1_epi32(lowest<T>()), hi = _mm512_set1_epi32(highest<T>());
  for (; i + 16 <= count; i += 16) {
    // Saturating to int16 and then to 8 bits, as onnxruntime's packs do, is this clamp.
    const __m512i r = _mm512_min_epi32(_mm512_max_epi32(add_sums_avx512(a + i, b + i, ra, rb, fixed), lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(r));
  }
  return i;
}
QTUNE_GCC105593_END

#endif

}  // namespace

template <typename T>
void qlinear_add(const T* a, const T* b, T* out, std::size_t count, Quantization qa, Quantization qb, Quantization qc) {
  const AddConstants k = add_constants(qa, qb, qc);
  std::size_t i = 0;
  const bool fused = adds_in_fma_order();
#if defined(__x86_64__)
  if (fused && avx512_paths()) i = qlinear_add_avx512(a, b, out, count, k);
  else if (fused && avx2_paths()) i = qlinear_add_avx2(a, b, out, count, k);
#endif
  for (; i < count; ++i) {
    const float fa = static_cast<float>(a[i]), fb = static_cast<float>(b[i]);
    // AVX2 kernels: two fused multiply-adds; SSE2 kernels: multiplies and adds, left to right.
    const float v = fused ? std::fma(fa, k.ra, std::fma(fb, k.rb, k.fixed)) : (k.fixed + fa * k.ra) + fb * k.rb;
    out[i] = saturate<T>(convert_rne(v));
  }
}

template <typename T>
ByteTable requantize_table(Quantization from, Quantization to, std::int32_t lo, std::int32_t hi) {
  ByteTable table{};
  for (int j = 0; j < 256; ++j) {
    const auto x = static_cast<T>(static_cast<std::uint8_t>(j));
    const float real = static_cast<float>(static_cast<std::int32_t>(x) - from.zero_point) * from.scale;
    const std::int32_t q = convert_rne(real / to.scale);
    const std::int64_t shifted = q == INT_MIN ? INT_MIN : static_cast<std::int64_t>(q) + to.zero_point;
    const auto v = static_cast<std::int32_t>(std::clamp<std::int64_t>(shifted, lo, hi));
    table[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(static_cast<T>(v));
  }
  return table;
}

#if defined(__x86_64__)
namespace {
// 64 lookups per step: vpermi2b looks up 128 entries by an index's low seven bits, twice (the
// table's halves), and the index's top bit picks between them.
#define QTUNE_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
struct TableRegisters {
  __m512i quarter[4];
  QTUNE_VBMI [[gnu::always_inline]] __m512i lookup(__m512i x) const {
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), _mm512_permutex2var_epi8(quarter[0], x, quarter[1]),
                                  _mm512_permutex2var_epi8(quarter[2], x, quarter[3]));
  }
};

QTUNE_VBMI void apply_table_rows_vbmi(const std::uint8_t* in, std::size_t in_stride, std::uint8_t* out,
                                      std::size_t out_stride, std::size_t rows, std::size_t count,
                                      const ByteTable& table) {
  TableRegisters t;
  for (int q = 0; q < 4; ++q) t.quarter[q] = _mm512_loadu_si512(table.data() + 64 * q);
  for (std::size_t r = 0; r < rows; ++r, in += in_stride, out += out_stride) {
    std::size_t i = 0;
    for (; i + 64 <= count; i += 64) _mm512_storeu_si512(out + i, t.lookup(_mm512_loadu_si512(in + i)));
    if (i < count) {
      const __mmask64 tail = (~__mmask64{0}) >> (64 - (count - i));
      _mm512_mask_storeu_epi8(out + i, tail, t.lookup(_mm512_maskz_loadu_epi8(tail, in + i)));
    }
  }
}
#undef QTUNE_VBMI
}  // namespace
#endif

void apply_table_rows(const std::uint8_t* in, std::size_t in_stride, std::uint8_t* out, std::size_t out_stride,
                      std::size_t rows, std::size_t count, const ByteTable& table) {
#if defined(__x86_64__)
  if (avx512_vbmi_paths()) return apply_table_rows_vbmi(in, in_stride, out, out_stride, rows, count, table);
#endif
  for (std::size_t r = 0; r < rows; ++r, in += in_stride, out += out_stride)
    for (std::size_t i = 0; i < count; ++i) out[i] = table[in[i]];
}

void apply_table(const std::uint8_t* in, std::uint8_t* out, std::size_t count, const ByteTable& table) {
  apply_table_rows(in, count, out, count, 1, count, table);
}

template <typename T>
[[gnu::always_inline]] inline void max_pool_body(const T* in, ImageShape input, T* out, ImageShape output,
                                                 const PoolWindow& window, std::int64_t row_begin, std::int64_t row_end) {
  const auto c = static_cast<std::size_t>(input.c);
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / output.h, oh = row % output.h;
      for (std::int64_t ow = 0; ow < output.w; ++ow) {
        T* y = out + static_cast<std::size_t>(((n * output.h + oh) * output.w + ow)) * c;
        std::fill(y, y + c, std::numeric_limits<T>::lowest());
        const WindowTaps t = window_taps(window, input, oh, ow);
        for (std::int64_t kh = t.kh0; kh < t.kh1; ++kh)
          for (std::int64_t kw = t.kw0; kw < t.kw1; ++kw) {
            const std::int64_t h = t.h + kh * window.dilation_h, w = t.w + kw * window.dilation_w;
            const T* x = in + static_cast<std::size_t>(((n * input.h + h) * input.w + w)) * c;
            for (std::size_t ch = 0; ch < c; ++ch) y[ch] = std::max(y[ch], x[ch]);
          }
      }
  }
}

// One block's input row dequantized into the ring (kAveragePoolBlock floats per pixel), as
// dequantize() computes each element.
template <typename T>
[[gnu::always_inline]] inline void dequantize_pool_row_body(const T* in, std::size_t pixel_stride, std::int64_t width,
                                                            std::size_t channels, Quantization qx, float* ring_row) {
  for (std::int64_t w = 0; w < width; ++w, in += pixel_stride, ring_row += kAveragePoolBlock)
    for (std::size_t ch = 0; ch < channels; ++ch)
      ring_row[ch] = static_cast<float>(static_cast<std::int32_t>(in[ch]) - qx.zero_point) * qx.scale;
}

template <typename T>
[[gnu::always_inline]] inline void average_pool_row_body(const AveragePoolRow<T>& r) {
  const PoolWindow& window = *r.window;
  float sum[kAveragePoolBlock];
  for (std::int64_t ow = 0; ow < r.output_w; ++ow) {
    const std::int64_t left = ow * window.stride_w - window.pad_left;
    const std::int64_t w0 = std::max<std::int64_t>(left, 0), w1 = std::min(left + window.kernel_w, r.input_w);
    const auto count = static_cast<float>(WindowInImage{0, r.height, w0, w1}.average_count(window));
    std::fill(sum, sum + r.channels, 0.0f);
    // The window's dequantized values added in window order per channel; across channels the
    // loop vectorizes.
    for (std::int64_t h = 0; h < r.row_count; ++h)
      for (std::int64_t w = w0; w < w1; ++w) {
        const float* x = r.rows[h] + static_cast<std::size_t>(w) * kAveragePoolBlock;
        for (std::size_t ch = 0; ch < r.channels; ++ch) sum[ch] += x[ch];
      }
    T* y = r.out + static_cast<std::size_t>(ow) * r.pixel_stride;
    // The divisions in a loop of their own, which vectorizes; the rounding after.
    for (std::size_t ch = 0; ch < r.channels; ++ch)
      sum[ch] = sum[ch] / count / r.qy.scale + static_cast<float>(r.qy.zero_point);
    for (std::size_t ch = 0; ch < r.channels; ++ch) y[ch] = round_saturate<T>(sum[ch]);
  }
}

template <typename T>
void global_average_pool_nhwc(const T* in, ImageShape input, T* out, Quantization qx, Quantization qy) {
  const auto c = static_cast<std::size_t>(input.c);
  const std::int64_t pixels = input.h * input.w;
  const float scale = qx.scale / (qy.scale * static_cast<float>(pixels));
  // Per thread and kept across calls (docs/model-executor.md, "Working buffers kept across runs").
  thread_local std::vector<std::int32_t> acc;
  acc.resize(c);
  for (std::int64_t n = 0; n < input.n; ++n) {
    std::fill(acc.begin(), acc.end(), static_cast<std::int32_t>(-qx.zero_point * pixels));
    const T* x = in + static_cast<std::size_t>(n * pixels) * c;
    for (std::int64_t p = 0; p < pixels; ++p, x += c)
      for (std::size_t ch = 0; ch < c; ++ch) acc[ch] += x[ch];
    T* y = out + static_cast<std::size_t>(n) * c;
    for (std::size_t ch = 0; ch < c; ++ch) {
      // onnxruntime clamps to [min - zY, max - zY], rounds, then adds zY: the same as rounding,
      // adding zY and saturating.
      const float v = static_cast<float>(acc[ch]) * scale;
      const float bound = 512.0f;  // beyond any 8-bit range with any 8-bit zero point
      const auto q = static_cast<std::int32_t>(round_small(std::min(std::max(v, -bound), bound)));
      y[ch] = saturate<T>(q + qy.zero_point);
    }
  }
}

template <typename T>
void qlinear_softmax(const T* in, T* out, std::size_t rows, std::size_t row, Quantization qx, Quantization qy) {
  constexpr bool is_signed = std::is_signed_v<T>;
  // onnxruntime's table: exp over the 256 inputs, shifted so that a row's sum stays finite.
  std::array<float, 256> table{};
  double shift = std::log(static_cast<double>(FLT_MAX / static_cast<float>(row)));
  shift = std::max(0.0, shift - 5.0) / qx.scale;
  for (int i = 0; i < 256; ++i) {
    const double e = std::exp((static_cast<double>(i) - 255 + shift) * static_cast<double>(qx.scale));
    table[static_cast<std::uint8_t>(is_signed ? i - 128 : i)] = static_cast<float>(e);
  }
  const float inverse = std::floor(1.0f / qy.scale);
  for (std::size_t r = 0; r < rows; ++r) {
    const T* x = in + r * row;
    T* y = out + r * row;
    const T xmax = *std::max_element(x, x + row);
    const auto index = [&](T v) {
      return is_signed ? static_cast<std::uint8_t>(127 - static_cast<std::int32_t>(xmax) + v)
                       : static_cast<std::uint8_t>(255 - static_cast<std::int32_t>(xmax) + v);
    };
    float sum = 0;
    for (std::size_t i = 0; i < row; ++i) sum += table[index(x[i])];
    if (sum == 0) continue;
    for (std::size_t i = 0; i < row; ++i) {
      const float v = table[index(x[i])] * inverse / sum;
      // x86's conversion: a quotient beyond int32 (y_scale below 2^-31) is INT_MIN, the minimum.
      const std::int64_t q = std::int64_t{convert_rne(v)} + qy.zero_point;
      y[i] = static_cast<T>(std::clamp<std::int64_t>(q, lowest<T>(), highest<T>()));
    }
  }
}

void softmax(const float* in, float* out, std::size_t rows, std::size_t row) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = in + r * row;
    float* y = out + r * row;
    const float xmax = *std::max_element(x, x + row);
    float sum = 0;
    for (std::size_t i = 0; i < row; ++i) {
      y[i] = std::exp(x[i] - xmax);
      sum += y[i];
    }
    const float inverse = 1.0f / sum;
    for (std::size_t i = 0; i < row; ++i) y[i] *= inverse;
  }
}

// QuantizeLinear of `count` floats into `out` (stride elements apart); written so that the compiler
// vectorizes it (the comparisons select, the rounding is the float addition of round_small).
template <typename T>
void quantize_run(const float* in, T* out, std::size_t count, std::size_t stride, Quantization q) {
  const float lo = static_cast<float>(lowest<T>() - q.zero_point), hi = static_cast<float>(highest<T>() - q.zero_point);
  constexpr std::size_t kBlock = 256;
  std::int32_t rounded[kBlock];
  for (std::size_t begin = 0; begin < count; begin += kBlock) {
    const std::size_t n = std::min(kBlock, count - begin);
    for (std::size_t i = 0; i < n; ++i) {
      float v = in[begin + i] / q.scale;
      v = v >= lo ? v : lo;  // NaN too, as onnxruntime's max with the lower bound gives
      v = v > hi ? hi : v;
      rounded[i] = static_cast<std::int32_t>(round_small(v));
    }
    for (std::size_t i = 0; i < n; ++i) out[(begin + i) * stride] = static_cast<T>(rounded[i] + q.zero_point);
  }
}

template <typename T>
void quantize(const float* in, T* out, std::size_t count, Quantization q) {
  quantize_run(in, out, count, 1, q);
}

template <typename T>
void quantize_nchw_to_nhwc(const float* in, T* out, ImageShape s, Quantization q, std::int64_t pixel_begin,
                           std::int64_t pixel_end) {
  const std::int64_t pixels = s.h * s.w;
  // One image's run of pixels at a time, channel by channel (contiguous in NCHW).
  for (std::int64_t p = pixel_begin; p < pixel_end;) {
    const std::int64_t n = p / pixels, first = p % pixels;
    const std::int64_t last = std::min(pixels, first + (pixel_end - p));
    std::int64_t done = 0;
#if defined(__x86_64__)
    if (s.c <= kQuantizeAvx512MaxChannels && avx512_vbmi_paths())
      done = quantize_planes_avx512(in + (n * s.c) * pixels + first, pixels, s.c, out + (n * pixels + first) * s.c,
                                    last - first, q);
#endif
    for (std::int64_t c = 0; c < s.c; ++c) {
      const float* x = in + static_cast<std::size_t>((n * s.c + c) * pixels + first + done);
      T* y = out + static_cast<std::size_t>((n * pixels + first + done) * s.c + c);
      quantize_run(x, y, static_cast<std::size_t>(last - first - done), static_cast<std::size_t>(s.c), q);
    }
    p += last - first;
  }
}


void float_average_pool_nhwc(const float* in, ImageShape input, float* out, ImageShape output, const PoolWindow& window,
                             std::int64_t row_begin, std::int64_t row_end) {
  const auto c = static_cast<std::size_t>(input.c);
  thread_local std::vector<float> sum;  // kept across calls, as above
  sum.resize(c);
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / output.h, oh = row % output.h;
    for (std::int64_t ow = 0; ow < output.w; ++ow) {
      const std::int64_t h0 = oh * window.stride_h - window.pad_top, w0 = ow * window.stride_w - window.pad_left;
      // ONNX's divisor with count_include_pad: the window clipped to the padded input.
      const std::int64_t padded = (std::min(h0 + window.kernel_h, input.h + window.pad_bottom) - h0) *
                                  (std::min(w0 + window.kernel_w, input.w + window.pad_right) - w0);
      const std::int64_t h_lo = std::max<std::int64_t>(h0, 0), h_hi = std::min(h0 + window.kernel_h, input.h);
      const std::int64_t w_lo = std::max<std::int64_t>(w0, 0), w_hi = std::min(w0 + window.kernel_w, input.w);
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (std::int64_t h = h_lo; h < h_hi; ++h)
        for (std::int64_t w = w_lo; w < w_hi; ++w) {
          const float* x = in + static_cast<std::size_t>(((n * input.h + h) * input.w + w)) * c;
          for (std::size_t ch = 0; ch < c; ++ch) sum[ch] += x[ch];
        }
      const float count = static_cast<float>(window.count_include_pad ? padded : std::max<std::int64_t>((h_hi - h_lo) * (w_hi - w_lo), 1));
      float* y = out + static_cast<std::size_t>(((n * output.h + oh) * output.w + ow)) * c;
      for (std::size_t ch = 0; ch < c; ++ch) y[ch] = sum[ch] / count;
    }
  }
}

void float_global_average_pool_nhwc(const float* in, ImageShape input, float* out) {
  const auto c = static_cast<std::size_t>(input.c);
  const std::int64_t pixels = input.h * input.w;
  for (std::int64_t n = 0; n < input.n; ++n) {
    float* y = out + static_cast<std::size_t>(n) * c;
    std::fill(y, y + c, 0.0f);
    const float* x = in + static_cast<std::size_t>(n * pixels) * c;
    for (std::int64_t p = 0; p < pixels; ++p, x += c)
      for (std::size_t ch = 0; ch < c; ++ch) y[ch] += x[ch];
    for (std::size_t ch = 0; ch < c; ++ch) y[ch] /= static_cast<float>(pixels);
  }
}

// The pools' loops vectorize across channels; compiled for AVX-512 too (target clones), which the
// baseline build's 16-byte vectors leave at a quarter of the width. This file is built without
// floating-point contraction, so the clones' sums round as onnxruntime's do.
namespace {
// Target clones cannot be templates: one overload per element type.
#define QTUNE_POOL_CLONES(T)                                                                                          \
  QTUNE_CLONED_FOR_AVX512 void max_pool_cloned(const T* in, ImageShape is, T* out, ImageShape os, const PoolWindow& w, \
                                               std::int64_t begin, std::int64_t end) {                               \
    max_pool_body(in, is, out, os, w, begin, end);                                                                    \
  }
QTUNE_POOL_CLONES(std::uint8_t)
QTUNE_POOL_CLONES(std::int8_t)
QTUNE_POOL_CLONES(float)
#undef QTUNE_POOL_CLONES
#define QTUNE_AVERAGE_POOL_CLONES(T)                                                                                  \
  QTUNE_CLONED_FOR_AVX512 void dequantize_pool_row_cloned(const T* in, std::size_t pixel_stride, std::int64_t width,  \
                                                          std::size_t channels, Quantization qx, float* ring_row) {   \
    dequantize_pool_row_body(in, pixel_stride, width, channels, qx, ring_row);                                        \
  }                                                                                                                    \
  QTUNE_CLONED_FOR_AVX512 void average_pool_row_cloned(const AveragePoolRow<T>& r) { average_pool_row_body(r); }
QTUNE_AVERAGE_POOL_CLONES(std::uint8_t)
QTUNE_AVERAGE_POOL_CLONES(std::int8_t)
#undef QTUNE_AVERAGE_POOL_CLONES
QTUNE_CLONED_FOR_AVX512 void dequantize_u8(const std::uint8_t* in, float* out, std::size_t count, Quantization q) {
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(static_cast<std::int32_t>(in[i]) - q.zero_point) * q.scale;
}
QTUNE_CLONED_FOR_AVX512 void dequantize_s8(const std::int8_t* in, float* out, std::size_t count, Quantization q) {
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(static_cast<std::int32_t>(in[i]) - q.zero_point) * q.scale;
}
}  // namespace

template <>
void dequantize<std::uint8_t>(const std::uint8_t* in, float* out, std::size_t count, Quantization q) {
  dequantize_u8(in, out, count, q);
}
template <>
void dequantize<std::int8_t>(const std::int8_t* in, float* out, std::size_t count, Quantization q) {
  dequantize_s8(in, out, count, q);
}
AveragePoolDivisors average_pool_divisors(const PoolWindow& window, Quantization qx, Quantization qy) {
  AveragePoolDivisors d;
  const std::int64_t area = window.kernel_h * window.kernel_w;
  // The sums' nonzero magnitudes lie in [ulp(x_scale), 255 * area * x_scale] (each term is a
  // multiple of x_scale's ulp), inside reciprocal_division.h's range when these hold.
  const bool in_range = area <= (std::int64_t{1} << 16) && std::fabs(qx.scale) >= 0x1p-36f &&
                        std::fabs(qx.scale) <= 0x1p36f && reciprocal_divisor_in_range(qy.scale);
  const auto divisor = [&](float b) {
    if (in_range) return reciprocal_divisor(b);
    ReciprocalDivisor real;
    real.divisor = b;
    return real;
  };
  d.by_scale = divisor(qy.scale);
  d.by_count.resize(static_cast<std::size_t>(area + 1));
  d.by_count[0].divisor = 0;
  for (std::int64_t k = 1; k <= area; ++k) {
    // count_include_pad divides by the whole area only.
    if (window.count_include_pad && k != area) continue;
    d.by_count[static_cast<std::size_t>(k)] = divisor(static_cast<float>(k));
  }
  return d;
}

std::size_t average_pool_scratch_floats(ImageShape input, const PoolWindow& window) {
  return static_cast<std::size_t>(std::max<std::int64_t>(window.kernel_h, 1) * input.w) * kAveragePoolBlock;
}

template <typename T>
void average_pool_nhwc(const T* in, ImageShape is, T* out, ImageShape os, const PoolWindow& w, Quantization qx,
                       Quantization qy, const AveragePoolDivisors& divisors, float* scratch, std::int64_t begin,
                       std::int64_t end) {
#if defined(__x86_64__)
  const bool vector = avx512_paths();
#endif
  const auto c = static_cast<std::size_t>(is.c);
  const std::int64_t ring_rows = std::max<std::int64_t>(w.kernel_h, 1);
  const std::size_t row_floats = static_cast<std::size_t>(is.w) * kAveragePoolBlock;
  std::vector<const float*> rows(static_cast<std::size_t>(ring_rows));
  const auto ring_row = [&](std::int64_t h) { return scratch + static_cast<std::size_t>(h % ring_rows) * row_floats; };
  AveragePoolRow<T> r;
  r.rows = rows.data();
  r.input_w = is.w;
  r.output_w = os.w;
  r.window = &w;
  r.divisors = &divisors;
  r.qy = qy;
  r.pixel_stride = c;
  for (std::size_t first = 0; first < c; first += kAveragePoolBlock) {
    const std::size_t channels = std::min(kAveragePoolBlock, c - first);
    r.channels = channels;
    // The ring holds input rows up to `loaded` of image `image`; windows only move down the image,
    // so a row is dequantized once and dropped when no later window reaches it.
    std::int64_t image = -1, loaded = 0;
    for (std::int64_t row = begin; row < end; ++row) {
      const std::int64_t n = row / os.h, oh = row % os.h;
      if (n != image) image = n, loaded = 0;
      const WindowInImage e = window_in_image(w, is, oh, 0);
      for (std::int64_t h = std::max(loaded, e.h0); h < e.h1; ++h) {
        const T* x = in + static_cast<std::size_t>((n * is.h + h) * is.w) * c + first;
        float* ring = ring_row(h);
#if defined(__x86_64__)
        if (vector) {
          dequantize_pool_row_avx512(x, c, is.w, channels, qx, ring);
          continue;
        }
#endif
        dequantize_pool_row_cloned(x, c, is.w, channels, qx, ring);
      }
      loaded = std::max(loaded, e.h1);
      r.row_count = std::max<std::int64_t>(e.h1 - e.h0, 0);
      for (std::int64_t i = 0; i < r.row_count; ++i) rows[static_cast<std::size_t>(i)] = ring_row(e.h0 + i);
      r.height = e.h1 - e.h0;
      r.out = out + static_cast<std::size_t>((n * os.h + oh) * os.w) * c + first;
#if defined(__x86_64__)
      if (vector) {
        average_pool_row_avx512(r);
        continue;
      }
#endif
      average_pool_row_cloned(r);
    }
  }
}

template <typename T>
void average_pool_nhwc(const T* in, ImageShape is, T* out, ImageShape os, const PoolWindow& w, Quantization qx,
                       Quantization qy, std::int64_t begin, std::int64_t end) {
  std::vector<float> scratch(average_pool_scratch_floats(is, w));
  average_pool_nhwc<T>(in, is, out, os, w, qx, qy, average_pool_divisors(w, qx, qy), scratch.data(), begin, end);
}

template <typename T>
void max_pool_nhwc(const T* in, ImageShape is, T* out, ImageShape os, const PoolWindow& w, std::int64_t begin,
                   std::int64_t end) {
#if defined(__x86_64__)
  if constexpr (!std::is_same_v<T, float>)
    if (avx512_paths()) return max_pool_avx512(in, is, out, os, w, begin, end);
#endif
  max_pool_cloned(in, is, out, os, w, begin, end);
}
template void max_pool_nhwc<std::uint8_t>(const std::uint8_t*, ImageShape, std::uint8_t*, ImageShape, const PoolWindow&,
                                          std::int64_t, std::int64_t);
template void max_pool_nhwc<std::int8_t>(const std::int8_t*, ImageShape, std::int8_t*, ImageShape, const PoolWindow&,
                                         std::int64_t, std::int64_t);
template void max_pool_nhwc<float>(const float*, ImageShape, float*, ImageShape, const PoolWindow&, std::int64_t,
                                   std::int64_t);

#define QTUNE_EXECUTOR_INSTANTIATE(T)                                                                                  \
  template void qlinear_add<T>(const T*, const T*, T*, std::size_t, Quantization, Quantization, Quantization);       \
  template ByteTable requantize_table<T>(Quantization, Quantization, std::int32_t, std::int32_t);                    \
  template void global_average_pool_nhwc<T>(const T*, ImageShape, T*, Quantization, Quantization);                   \
  template void qlinear_softmax<T>(const T*, T*, std::size_t, std::size_t, Quantization, Quantization);              \
  template void quantize<T>(const float*, T*, std::size_t, Quantization);                                            \
  template void quantize_nchw_to_nhwc<T>(const float*, T*, ImageShape, Quantization, std::int64_t, std::int64_t);    \
  template void average_pool_nhwc<T>(const T*, ImageShape, T*, ImageShape, const PoolWindow&, Quantization, Quantization, \
                                     const AveragePoolDivisors&, float*, std::int64_t, std::int64_t);                 \
  template void average_pool_nhwc<T>(const T*, ImageShape, T*, ImageShape, const PoolWindow&, Quantization, Quantization, \
                                     std::int64_t, std::int64_t);
QTUNE_EXECUTOR_INSTANTIATE(std::uint8_t)
QTUNE_EXECUTOR_INSTANTIATE(std::int8_t)
#undef QTUNE_EXECUTOR_INSTANTIATE

}  // namespace qtune::executor
