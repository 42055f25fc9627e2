// The executor's operations against scalar references written from onnxruntime's arithmetic
// (docs/model-executor.md), over ragged sizes and extreme quantization parameters: the vector
// paths (QLinearAdd's AVX2 kernel, the vectorized QuantizeLinear) and the split into row ranges.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "executor/src/arena_plan.h"
#include "executor/src/layout_ops.h"
#include "executor/src/quantized_ops.h"

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
  const bool fused = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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

TEST(QuantizedOps, QuantizeIntoNhwcEqualsQuantizeThenTranspose) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-2, 2);
  const ImageShape s{2, 5, 7, 3};
  std::vector<float> x(static_cast<std::size_t>(s.n * s.c * s.h * s.w));
  for (auto& v : x) v = value(rng);
  const Quantization q{0.01f, 120};
  std::vector<std::uint8_t> flat(x.size()), expected(x.size()), got(x.size());
  quantize<std::uint8_t>(x.data(), flat.data(), x.size(), q);
  nchw_to_nhwc(flat.data(), expected.data(), s.n, s.c, s.h, s.w, 1);
  // In ragged pixel ranges, as threads split it.
  const std::int64_t pixels = s.n * s.h * s.w;
  for (std::int64_t begin = 0; begin < pixels; begin += 11)
    quantize_nchw_to_nhwc<std::uint8_t>(x.data(), got.data(), s, q, begin, std::min(pixels, begin + 11));
  EXPECT_EQ(got, expected);
}

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
          out[static_cast<std::size_t>(((n * os.h + oh) * os.w + ow) * os.c + c)] =
              max ? static_cast<T>(best) : saturated<T>(static_cast<long long>(std::nearbyint(y)));
        }
  return out;
}

template <typename T>
void check_pools() {
  std::mt19937 rng(11);
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
          const ImageShape is{2, 9, 11, 5};
          const std::int64_t extent = w.dilation_h * (k - 1) + 1;
          const ImageShape os{2, (is.h + 2 * pad - extent) / stride + 1, (is.w + 2 * pad - extent) / stride + 1, 5};
          const auto in = random_values<T>(static_cast<std::size_t>(is.n * is.h * is.w * is.c), rng);
          std::vector<T> got(static_cast<std::size_t>(os.n * os.h * os.w * os.c));
          max_pool_nhwc<T>(in.data(), is, got.data(), os, w, 0, os.n * os.h);
          ASSERT_EQ(got, reference_pool<T>(in, is, os, w, true, {}, {})) << "max k " << k << " stride " << stride;
          w.dilation_h = w.dilation_w = 1;
          const ImageShape as{2, (is.h + 2 * pad - k) / stride + 1, (is.w + 2 * pad - k) / stride + 1, 5};
          std::vector<T> avg(static_cast<std::size_t>(as.n * as.h * as.w * as.c));
          const Quantization qx{0.02f, 7}, qy{0.015f, std::is_signed_v<T> ? -3 : 130};
          for (std::int64_t row = 0; row < as.n * as.h; ++row)  // row by row, as threads split it
            average_pool_nhwc<T>(in.data(), is, avg.data(), as, w, qx, qy, row, row + 1);
          ASSERT_EQ(avg, reference_pool<T>(in, is, as, w, false, qx, qy)) << "average k " << k << " stride " << stride;
        }
}

TEST(QuantizedOps, PoolsEqualTheirDefinitionU8) { check_pools<std::uint8_t>(); }
TEST(QuantizedOps, PoolsEqualTheirDefinitionS8) { check_pools<std::int8_t>(); }

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
