// The executor's operations against scalar references written from onnxruntime's arithmetic
// (docs/model-executor.md), over ragged sizes and extreme quantization parameters: the vector
// paths (QLinearAdd's AVX2 kernel, the vectorized QuantizeLinear) and the split into row ranges.
#include <cmath>
#include <cstdlib>
#include <string>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "executor/src/arena_plan.h"
#include "executor/src/layout_ops.h"
#include "executor/src/quantized_ops.h"
#include "executor/src/vector_paths.h"

namespace {

using namespace qtune::executor;

std::vector<Quantization> extreme_quantizations() {
  return {{1.0f, 0}, {0.0039215689f, 128}, {0.02f, 3}, {1e-4f, 255}, {250.0f, 0}, {3.0517578e-05f, 17}, {7.5f, 200}};
}

template <typename T>
std::vector<T> random_values(std::size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng());
  return v;
}

template <typename T>
T saturated(long long v) {
  return static_cast<T>(std::clamp<long long>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// onnxruntime's x86 QLinearAdd, one element at a time (fused multiply-adds on AVX2 CPUs).
template <typename T>
T reference_add(T a, T b, Quantization qa, Quantization qb, Quantization qc, bool fused) {
  const float ra = qa.scale / qc.scale, rb = qb.scale / qc.scale;
  const float fixed = static_cast<float>(qc.zero_point) - (ra * static_cast<float>(qa.zero_point) + rb * static_cast<float>(qb.zero_point));
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  const float v = fused ? std::fma(fa, ra, std::fma(fb, rb, fixed)) : (fixed + fa * ra) + fb * rb;
  if (!(v > -2147483648.0f && v < 2147483648.0f)) return static_cast<T>(std::numeric_limits<T>::min());
  return saturated<T>(static_cast<long long>(std::nearbyint(v)));
}

template <typename T>
void check_add() {
  std::mt19937 rng(5);
#if defined(__x86_64__)
  const bool fused = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  const bool fused = true;  // elsewhere onnxruntime x64's AVX2 order, the whole-model tests' reference
#endif
  for (const std::size_t n : {1u, 7u, 8u, 9u, 31u, 64u, 1000u, 4099u})
    for (const auto qa : extreme_quantizations())
      for (const auto qb : extreme_quantizations())
        for (const auto qc : {Quantization{0.05f, 128}, Quantization{1e-5f, 0}, Quantization{300.0f, 255}}) {
          const auto a = random_values<T>(n, rng), b = random_values<T>(n, rng);
          std::vector<T> out(n);
          qlinear_add<T>(a.data(), b.data(), out.data(), n, qa, qb, qc);
          for (std::size_t i = 0; i < n; ++i)
            ASSERT_EQ(int(out[i]), int(reference_add(a[i], b[i], qa, qb, qc, fused))) << "n " << n << " i " << i;
        }
}

TEST(QuantizedOps, QLinearAddEqualsOnnxRuntimesFormulaU8) { check_add<std::uint8_t>(); }
TEST(QuantizedOps, QLinearAddEqualsOnnxRuntimesFormulaS8) { check_add<std::int8_t>(); }

template <typename T>
void check_quantize() {
  std::vector<float> x = {0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 127.5f, -128.5f, 254.5f};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> value(-400, 400);
  for (int i = 0; i < 5000; ++i) x.push_back(value(rng));
  for (const auto q : extreme_quantizations()) {
    const Quantization qt{q.scale, std::is_signed_v<T> ? q.zero_point - 128 : q.zero_point};
    std::vector<T> out(x.size());
    quantize<T>(x.data(), out.data(), x.size(), qt);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float v = x[i] / qt.scale;
      const T expected = std::isnan(v) ? static_cast<T>(std::numeric_limits<T>::min())
                                       : saturated<T>(static_cast<long long>(std::nearbyint(std::clamp(v, -1e9f, 1e9f))) + qt.zero_point);
      ASSERT_EQ(int(out[i]), int(expected)) << "x " << x[i] << " scale " << qt.scale << " zero point " << qt.zero_point;
    }
  }
}

TEST(QuantizedOps, QuantizeDividesRoundsHalfToEvenAndSaturatesU8) { check_quantize<std::uint8_t>(); }
TEST(QuantizedOps, QuantizeDividesRoundsHalfToEvenAndSaturatesS8) { check_quantize<std::int8_t>(); }

// The image path (16 pixels a step for up to four planes, their bytes interleaved) against
// QuantizeLinear then a transpose: every channel count it takes and one it does not, values that
// leave the reciprocal iteration's range (zero, tiny, huge, infinite, NaN) among ordinary ones,
// whole images and ragged pixel ranges as threads split them.
template <typename T>
void check_quantize_into_nhwc() {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-3, 3);
  const float specials[] = {0.0f, -0.0f, 1e-30f, 0x1p-90f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 0x1p-149f, 0.005f, -0.015f};
  for (const std::int64_t channels : {1, 2, 3, 4, 5})
    for (const auto qe : extreme_quantizations()) {
      const Quantization q{qe.scale * 0.01f, std::is_signed_v<T> ? qe.zero_point - 128 : qe.zero_point};
      const ImageShape s{2, 9, 13, channels};
      std::vector<float> x(static_cast<std::size_t>(s.n * s.c * s.h * s.w));
      for (auto& v : x) v = value(rng) * qe.scale;
      // Near-ties, where a quotient one ulp off rounds the other way.
      std::uniform_int_distribution<int> step(-300, 300);
      for (std::size_t i = 0; i < x.size(); i += 3) x[i] = (static_cast<float>(step(rng)) + 0.5f) * q.scale;
      for (std::size_t i = 0; i < x.size(); i += 37) x[i] = specials[(i / 37) % std::size(specials)];
      std::vector<T> flat(x.size()), expected(x.size()), got(x.size());
      quantize<T>(x.data(), flat.data(), x.size(), q);
      nchw_to_nhwc(reinterpret_cast<const std::uint8_t*>(flat.data()), reinterpret_cast<std::uint8_t*>(expected.data()),
                   s.n, s.c, s.h, s.w, 1);
      const std::int64_t pixels = s.n * s.h * s.w;
      for (const std::int64_t range : {pixels, std::int64_t{11}, std::int64_t{40}}) {
        std::fill(got.begin(), got.end(), T{});
        for (std::int64_t begin = 0; begin < pixels; begin += range)
          quantize_nchw_to_nhwc<T>(x.data(), got.data(), s, q, begin, std::min(pixels, begin + range));
        ASSERT_EQ(got, expected) << "channels " << channels << " scale " << q.scale << " range " << range;
      }
    }
}

TEST(QuantizedOps, QuantizeIntoNhwcEqualsQuantizeThenTransposeU8) { check_quantize_into_nhwc<std::uint8_t>(); }
TEST(QuantizedOps, QuantizeIntoNhwcEqualsQuantizeThenTransposeS8) { check_quantize_into_nhwc<std::int8_t>(); }

// Plain loops over the window, as ONNX defines the pools.
template <typename T>
std::vector<T> reference_pool(const std::vector<T>& in, ImageShape is, ImageShape os, const PoolWindow& w, bool max,
                              Quantization qx, Quantization qy) {
  std::vector<T> out(static_cast<std::size_t>(os.n * os.h * os.w * os.c));
  for (std::int64_t n = 0; n < os.n; ++n)
    for (std::int64_t oh = 0; oh < os.h; ++oh)
      for (std::int64_t ow = 0; ow < os.w; ++ow)
        for (std::int64_t c = 0; c < os.c; ++c) {
          int best = std::numeric_limits<T>::min();
          float sum = 0;
          std::int64_t inside = 0;
          for (std::int64_t kh = 0; kh < w.kernel_h; ++kh)
            for (std::int64_t kw = 0; kw < w.kernel_w; ++kw) {
              const std::int64_t h = oh * w.stride_h - w.pad_top + kh * (max ? w.dilation_h : 1);
              const std::int64_t x = ow * w.stride_w - w.pad_left + kw * (max ? w.dilation_w : 1);
              if (h < 0 || h >= is.h || x < 0 || x >= is.w) continue;
              const T v = in[static_cast<std::size_t>(((n * is.h + h) * is.w + x) * is.c + c)];
              best = std::max<int>(best, v);
              sum += qx.scale * static_cast<float>(int(v) - qx.zero_point);
              ++inside;
            }
          const float count = static_cast<float>(w.count_include_pad ? w.kernel_h * w.kernel_w : inside);
          const float y = sum / count / qy.scale + static_cast<float>(qy.zero_point);
          // Clamped before rounding, NaN (a window wholly in the padding) to the minimum.
          const float lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
          out[static_cast<std::size_t>(((n * os.h + oh) * os.w + ow) * os.c + c)] =
              max ? static_cast<T>(best) : static_cast<T>(std::nearbyint(y >= lo ? std::min(y, hi) : lo));
        }
  return out;
}

// The average pool's quantizations: ordinary ones, the extremes, and scales outside the range where
// its divisions run as checked reciprocal iterations (reciprocal_division.h), which divide for real.
std::vector<std::pair<Quantization, Quantization>> pool_quantizations(bool is_signed) {
  std::vector<std::pair<Quantization, Quantization>> pairs{{{0.02f, 7}, {0.015f, is_signed ? -3 : 130}},
                                                           {{1e-12f, 0}, {3e-13f, 0}},
                                                           {{0.5f, 1}, {2e13f, is_signed ? 0 : 128}}};
  for (const auto& q : extreme_quantizations()) pairs.push_back({q, {q.scale * 0.75f, q.zero_point / 2}});
  return pairs;
}

template <typename T>
void check_pools() {
  std::mt19937 rng(11);
  for (const std::int64_t channels : {5, 16, 67, 144, 300})
  for (const std::int64_t k : {1, 2, 3, 5})
    for (const std::int64_t stride : {1, 2, 3})
      for (const std::int64_t pad : {0, 1, 2})
        for (const bool include : {false, true}) {
          if (pad >= k) continue;
          PoolWindow w;
          w.kernel_h = w.kernel_w = k;
          w.stride_h = w.stride_w = stride;
          w.pad_top = w.pad_left = pad;
          w.pad_bottom = w.pad_right = pad;
          w.dilation_h = w.dilation_w = (k == 2 ? 2 : 1);
          w.count_include_pad = include;
          const ImageShape is{2, 9, 11, channels};
          const std::int64_t extent = w.dilation_h * (k - 1) + 1;
          const ImageShape os{2, (is.h + 2 * pad - extent) / stride + 1, (is.w + 2 * pad - extent) / stride + 1, channels};
          const auto in = random_values<T>(static_cast<std::size_t>(is.n * is.h * is.w * is.c), rng);
          std::vector<T> got(static_cast<std::size_t>(os.n * os.h * os.w * os.c));
          max_pool_nhwc<T>(in.data(), is, got.data(), os, w, 0, os.n * os.h);
          ASSERT_EQ(got, reference_pool<T>(in, is, os, w, true, {}, {})) << "max k " << k << " stride " << stride;
          w.dilation_h = w.dilation_w = 1;
          const ImageShape as{2, (is.h + 2 * pad - k) / stride + 1, (is.w + 2 * pad - k) / stride + 1, channels};
          std::vector<T> avg(static_cast<std::size_t>(as.n * as.h * as.w * as.c));
          for (const auto& [qx, qy] : pool_quantizations(std::is_signed_v<T>)) {
            const auto expected = reference_pool<T>(in, is, as, w, false, qx, qy);
            // In ranges of rows as threads split them: each range fills its ring of input rows
            // from its first window, and a range across two images starts the ring again.
            const std::int64_t rows = as.n * as.h;
            for (const std::int64_t range : {std::int64_t{1}, std::int64_t{3}, rows}) {
              std::fill(avg.begin(), avg.end(), T{});
              for (std::int64_t row = 0; row < rows; row += range)
                average_pool_nhwc<T>(in.data(), is, avg.data(), as, w, qx, qy, row, std::min(rows, row + range));
              ASSERT_EQ(avg, expected) << "average k " << k << " stride " << stride << " channels " << channels
                                       << " x_scale " << qx.scale << " y_scale " << qy.scale << " rows " << range;
            }
          }
        }
}

TEST(QuantizedOps, PoolsEqualTheirDefinitionU8) { check_pools<std::uint8_t>(); }
TEST(QuantizedOps, PoolsEqualTheirDefinitionS8) { check_pools<std::int8_t>(); }

// tests/CMakeLists.txt runs these tests again under QTUNE_ISAS: the restriction must reach the
// executor's own vector paths, or those runs would check the same code twice.
TEST(QuantizedOps, VectorPathsFollowTheIsaRestriction) {
  const char* isas = std::getenv("QTUNE_ISAS");
  if (isas == nullptr) GTEST_SKIP() << "QTUNE_ISAS is not set";
  const std::string restriction = isas;
  if (restriction == "scalar" || restriction == "scalar,avx2") {
    EXPECT_FALSE(avx512_paths());
  }
  if (restriction == "scalar") {
    EXPECT_FALSE(avx2_paths());
  }
}

// The iteration against the true quotient on random dividends across the covered exponents, for
// divisors the check accepted.
TEST(QuantizedOps, ReciprocalDivisorsEqualDivision) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-86, 79);
  for (const float b : {1.0f, 3.0f, 7.0f, 9.0f, 49.0f, 0.015f, 0.0039215689f, 3.0517578e-05f, 250.0f, 1e-12f}) {
    const ReciprocalDivisor d = reciprocal_divisor(b);
    EXPECT_EQ(d.divisor, b);
    if (!reciprocal_divisor_in_range(b)) {
      EXPECT_FALSE(d.exact) << b;
      continue;
    }
    if (!d.exact) continue;
    for (int i = 0; i < 100000; ++i) {
      const float a = std::ldexp(significand(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
      const float q = a * d.reciprocal;
      const float iterated = std::fma(std::fma(-q, d.divisor, a), d.reciprocal, q);
      ASSERT_EQ(iterated, a / b) << a << " / " << b;
    }
  }
}

TEST(QuantizedOps, GlobalAveragePoolIsIntegerSumTimesOneScale) {
  std::mt19937 rng(2);
  const ImageShape s{2, 7, 7, 19};
  const auto in = random_values<std::uint8_t>(static_cast<std::size_t>(s.n * s.h * s.w * s.c), rng);
  for (const auto qx : extreme_quantizations())
    for (const auto qy : extreme_quantizations()) {
      std::vector<std::uint8_t> out(static_cast<std::size_t>(s.n * s.c));
      global_average_pool_nhwc<std::uint8_t>(in.data(), s, out.data(), qx, qy);
      const float scale = qx.scale / (qy.scale * 49.0f);
      for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t c = 0; c < s.c; ++c) {
          std::int32_t sum = 0;
          for (std::int64_t p = 0; p < 49; ++p) sum += in[static_cast<std::size_t>((n * 49 + p) * s.c + c)] - qx.zero_point;
          const long long q = static_cast<long long>(std::nearbyint(static_cast<float>(sum) * scale)) + qy.zero_point;
          ASSERT_EQ(int(out[static_cast<std::size_t>(n * s.c + c)]), int(saturated<std::uint8_t>(q)));
        }
    }
}

TEST(QuantizedOps, RequantizeTableIsDequantizeThenQuantize) {
  for (const auto from : extreme_quantizations())
    for (const auto to : extreme_quantizations()) {
      const ByteTable table = requantize_table<std::uint8_t>(from, to, 0, 255);
      for (int x = 0; x < 256; ++x) {
        const float real = static_cast<float>(x - from.zero_point) * from.scale;
        const long long q = static_cast<long long>(std::nearbyint(std::clamp(real / to.scale, -1e9f, 1e9f))) + to.zero_point;
        ASSERT_EQ(int(table[static_cast<std::size_t>(x)]), int(saturated<std::uint8_t>(q))) << x;
      }
    }
}

// A table applied to strided runs (one input of a concatenation), every length around the 64-byte
// steps of the byte-permute path, the bytes around each run untouched.
TEST(QuantizedOps, TableRowsLookUpEveryByteAndNothingElse) {
  std::mt19937 rng(8);
  ByteTable table{};
  for (auto& t : table) t = static_cast<std::uint8_t>(rng());
  for (const std::size_t count : {1u, 5u, 63u, 64u, 65u, 127u, 128u, 200u}) {
    const std::size_t rows = 3, in_stride = count + 7, out_stride = count + 11;
    const auto in = random_values<std::uint8_t>(rows * in_stride, rng);
    std::vector<std::uint8_t> out(rows * out_stride, 0xA5);
    apply_table_rows(in.data(), in_stride, out.data(), out_stride, rows, count, table);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < out_stride; ++i)
        ASSERT_EQ(int(out[r * out_stride + i]), i < count ? int(table[in[r * in_stride + i]]) : 0xA5)
            << "count " << count << " row " << r << " byte " << i;
  }
}

// A y_scale so small that the quotients leave int32: x86's conversion makes them INT_MIN, which
// saturates to the type's minimum (no undefined conversion).
TEST(QuantizedOps, SoftmaxQuotientsBeyondInt32SaturateToTheMinimum) {
  // Equal inputs: each probability is 1/10, 1e11 steps of 1e-12.
  const std::vector<std::uint8_t> in(3 * 10, 77);
  std::vector<std::uint8_t> out(in.size(), 7);
  qlinear_softmax<std::uint8_t>(in.data(), out.data(), 3, 10, {0.1f, 0}, {1e-12f, 3});
  for (const auto v : out) ASSERT_EQ(int(v), 0);
  const std::vector<std::int8_t> signed_in(in.size(), -20);
  std::vector<std::int8_t> signed_out(in.size(), 7);
  qlinear_softmax<std::int8_t>(signed_in.data(), signed_out.data(), 3, 10, {0.1f, 0}, {1e-12f, -5});
  for (const auto v : signed_out) ASSERT_EQ(int(v), -128);
  // And within int32 the ordinary rounding: 1/10 at y_scale 1/256 is 25.6, 26 steps.
  qlinear_softmax<std::uint8_t>(in.data(), out.data(), 3, 10, {0.1f, 0}, {1.0f / 256, 0});
  for (const auto v : out) ASSERT_EQ(int(v), 26);
}

TEST(QuantizedOps, TransposeMovesEveryElement) {
  const std::vector<std::int64_t> shape = {2, 3, 4, 5};
  std::vector<std::uint32_t> in(120);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i);
  const std::vector<std::int64_t> perm = {3, 1, 0, 2};
  std::vector<std::uint32_t> out(120);
  transpose(in.data(), out.data(), shape, perm, 4);
  for (std::int64_t a = 0; a < 2; ++a)
    for (std::int64_t b = 0; b < 3; ++b)
      for (std::int64_t c = 0; c < 4; ++c)
        for (std::int64_t d = 0; d < 5; ++d)
          ASSERT_EQ(out[static_cast<std::size_t>(((d * 3 + b) * 2 + a) * 4 + c)], in[static_cast<std::size_t>(((a * 3 + b) * 4 + c) * 5 + d)]);
}

TEST(ArenaPlan, BuffersLiveAtOneStepNeverOverlapAndTheArenaIsNoLargerThanNeeded) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < 40; ++i) {
      const std::size_t first = rng() % 30;
      buffers.push_back({1 + rng() % 5000, first, first + rng() % 6});
    }
    const ArenaPlan plan = plan_arena(buffers, 64);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      ASSERT_EQ(plan.offsets[i] % 64, 0u);
      ASSERT_LE(plan.offsets[i] + buffers[i].bytes, plan.arena_bytes);
      for (std::size_t j = i + 1; j < buffers.size(); ++j) {
        const bool live_together = buffers[i].first_step <= buffers[j].last_step && buffers[j].first_step <= buffers[i].last_step;
        const bool overlap = plan.offsets[i] < plan.offsets[j] + buffers[j].bytes && plan.offsets[j] < plan.offsets[i] + buffers[i].bytes;
        ASSERT_FALSE(live_together && overlap) << i << " and " << j;
      }
    }
    ASSERT_GE(plan.arena_bytes, plan.peak_live_bytes);
    // First fit by size stays within the live peak plus alignment and fragmentation of a chain of 40.
    ASSERT_LE(plan.arena_bytes, 2 * plan.peak_live_bytes + 40 * 64);
  }
}

}  // namespace
