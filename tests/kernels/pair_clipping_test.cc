// gemm/pair_clipping.h and the families built on it (avx2ubsw, avx512ubsw): which weight pairs are
// exact under vpmaddubsw, that clipping leaves only exact pairs and keeps every weight's value in
// the clipped weight plus its excess, and that every such microkernel is bit-exact where the pair
// sums sit right at the int16 limit under the largest activations (the shape and quantization
// sweeps of gemm_ukernel_test.cc run them over uniform weights, where a quarter of the pairs clip).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gemm_tester.h"
#include "kernels/src/gemm/gemm_pack.h"
#include "kernels/src/gemm/pair_clipping.h"
#include "kernels/src/gemm/pair_order.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune::testing {
namespace {

using detail::weight_pair_is_exact;

TEST(PairClipping, ExactPairsStayWithinInt16UnderEveryActivation) {
  // Brute force over every pair against the instruction's arithmetic at its extremes (0 and 255).
  for (int b0 = -128; b0 <= 127; ++b0) {
    for (int b1 = -128; b1 <= 127; ++b1) {
      bool fits = true;
      for (int a0 : {0, 255}) {
        for (int a1 : {0, 255}) {
          const int sum = a0 * b0 + a1 * b1;
          fits = fits && sum >= -32768 && sum <= 32767;
        }
      }
      ASSERT_EQ(weight_pair_is_exact(b0, b1), fits) << b0 << ", " << b1;
    }
  }
  EXPECT_TRUE(weight_pair_is_exact(127, 1));
  EXPECT_FALSE(weight_pair_is_exact(127, 2));
  EXPECT_TRUE(weight_pair_is_exact(-128, 0));
  EXPECT_FALSE(weight_pair_is_exact(-128, -1));
  EXPECT_TRUE(weight_pair_is_exact(127, -128));
}

// A B panel packed for `uk` from K x N weights, clipped (pairs first chosen per window with
// reorder_k); returns the weights read back from the panel plus each excess at its place, each
// moved back to its own k.
std::vector<std::int8_t> clip_and_restore(const detail::GemmUkernel& uk, const std::vector<std::int8_t>& b,
                                          std::size_t k, std::size_t n, std::size_t* clipped_count,
                                          bool* all_exact, bool reorder_k = false) {
  GemmProblem p;
  p.m = 1;
  p.n = static_cast<std::int64_t>(n);
  p.k = static_cast<std::int64_t>(k);
  p.b_zero_points = {0};
  p.has_bias = false;
  p.out_type = DType::s32;
  const auto nr = static_cast<std::size_t>(uk.nr), kr = static_cast<std::size_t>(uk.kr);
  const std::size_t k_groups = (k + kr - 1) / kr, panels = (n + nr - 1) / nr;
  const std::size_t panel_bytes = detail::gemm_b_panel_bytes(uk, k_groups);
  std::vector<std::uint8_t> packed(panels * panel_bytes + 64);
  auto* aligned = reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(packed.data()) + 63) / 64 * 64);
  detail::pack_b(uk, p, b.data(), n, nullptr, aligned);
  const detail::PairClipping clipping(uk, aligned, k, n, reorder_k);
  *clipped_count = clipping.size();
  const std::uint8_t* order = clipping.k_order();
  EXPECT_TRUE(reorder_k || order == nullptr);
  const auto own_k = [&](std::size_t kk) {
    return order == nullptr ? kk : kk / detail::kPairWindowBytes * detail::kPairWindowBytes + order[kk];
  };
  // Past the dense share the excesses are also panels of their own, which must hold the same.
  EXPECT_EQ(clipping.dense(), static_cast<double>(clipping.size()) > detail::PairClipping::kDenseShare * k * n);
  *all_exact = true;
  const auto stride = static_cast<std::size_t>(uk.nr_stride);
  std::vector<int> restored(k * n, 0);
  for (std::size_t panel = 0; panel < panels; ++panel) {
    const auto* w = reinterpret_cast<const std::int8_t*>(aligned + panel * panel_bytes + 8 * stride);
    for (std::size_t g = 0; g < k_groups; ++g) {
      for (std::size_t j = 0; j < stride; ++j) {
        for (std::size_t t = 0; t < kr; ++t) {
          const std::size_t kk = g * kr + t, col = panel * nr + j;
          const int value = w[(g * stride + j) * kr + t];
          if (t % 2 == 0) *all_exact = *all_exact && weight_pair_is_exact(value, w[(g * stride + j) * kr + t + 1]);
          if (kk < k && j < nr && col < n) restored[own_k(kk) * n + col] += value;
        }
      }
    }
    for (const detail::ClippedWeight& e : clipping.in_panel(panel, 0, k)) {
      restored[own_k(e.k) * n + panel * nr + e.column] += e.excess;
    }
    if (clipping.dense()) {
      std::vector<int> listed(k_groups * stride * kr, 0);
      for (const detail::ClippedWeight& e : clipping.in_panel(panel, 0, k)) listed[(e.k / kr * stride + e.column) * kr + e.k % kr] = e.excess;
      const std::int8_t* dense = clipping.excess_panel(panel);
      for (std::size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(dense[i], listed[i]) << "excess panel " << panel << " byte " << i;
      for (std::size_t i = 0; i + 1 < listed.size(); i += 2) EXPECT_TRUE(listed[i] == 0 || listed[i + 1] == 0);
    }
  }
  std::vector<std::int8_t> out(k * n);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int8_t>(restored[i]);
  return out;
}

TEST(PairClipping, LeavesOnlyExactPairsAndTheWeightsInTheirExcesses) {
  const std::size_t k = 37, n = 21;  // ragged groups and columns
  std::mt19937_64 rng(5);
  std::vector<std::int8_t> b(k * n);
  for (auto& v : b) v = static_cast<std::int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
  int families = 0;
  for (const detail::GemmUkernel& uk : detail::gemm_ukernel_registry()) {
    if (!uk.clips_pairs) continue;
    ++families;
    SCOPED_TRACE(uk.name);
    std::size_t clipped = 0;
    bool all_exact = false;
    EXPECT_EQ(clip_and_restore(uk, b, k, n, &clipped, &all_exact), b);
    EXPECT_TRUE(all_exact);
    EXPECT_GT(clipped, k * n / 16) << "uniform weights clip about a quarter of the pairs";
    // Small weights clip nothing; trained-like ones (a 127 per column, the rest small) a few, one by one.
    std::vector<std::int8_t> small(b.size()), trained(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) small[i] = static_cast<std::int8_t>(b[i] / 2);
    for (std::size_t i = 0; i < b.size(); ++i) trained[i] = static_cast<std::int8_t>(b[i] / 64);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t row = j % (k - 1);  // and its pair partner row ^ 1 < k
      trained[row * n + j] = 127;
      trained[(row ^ 1) * n + j] = 3;
    }
    EXPECT_EQ(clip_and_restore(uk, small, k, n, &clipped, &all_exact), small);
    EXPECT_EQ(clipped, 0u);
    EXPECT_EQ(clip_and_restore(uk, trained, k, n, &clipped, &all_exact), trained);
    EXPECT_TRUE(all_exact);
    EXPECT_EQ(clipped, n);
  }
  if (families == 0) GTEST_SKIP() << "no family that clips weight pairs in this build";
}

// With the pairs chosen per window (A packed), every weight is still the clipped weight plus its
// excess, only exact pairs are left, and no more weights clip; trained-like weights clip none
// where each window has partners of the other sign for its 127s.
TEST(PairClipping, PairsChosenPerWindowKeepEveryWeightAndClipFewer) {
  std::mt19937_64 rng(9);
  int families = 0;
  for (const detail::GemmUkernel& uk : detail::gemm_ukernel_registry()) {
    if (!uk.clips_pairs) continue;
    ++families;
    SCOPED_TRACE(uk.name);
    for (const auto& [k, n] : {std::pair<std::size_t, std::size_t>{37, 21}, {16, 8}, {144, 24}, {5, 3}}) {
      std::vector<std::int8_t> uniform(k * n), trained(k * n);
      for (auto& v : uniform) v = static_cast<std::int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
      // Small weights of either sign; per column one 127 whose given partner (9) makes it clip.
      for (std::size_t i = 0; i < trained.size(); ++i) {
        trained[i] = static_cast<std::int8_t>((rng() % 2 == 0 ? 1 : -1) * (uniform[i] / 8));
      }
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t row = (j * 7) % (k - 1) & ~std::size_t{1};
        trained[row * n + j] = 127;
        trained[(row + 1) * n + j] = 9;
      }
      for (const std::vector<std::int8_t>* b : {&uniform, &trained}) {
        std::size_t given = 0, chosen = 0;
        bool exact = false;
        EXPECT_EQ(clip_and_restore(uk, *b, k, n, &given, &exact), *b);
        EXPECT_EQ(clip_and_restore(uk, *b, k, n, &chosen, &exact, /*reorder_k=*/true), *b) << k << "x" << n;
        EXPECT_TRUE(exact);
        EXPECT_LE(chosen, given) << k << "x" << n;
        if (b == &trained) {
          EXPECT_GE(given, n) << k << "x" << n;
        }
        if (b == &trained && k == 144) {
          EXPECT_EQ(chosen, 0u) << "a MobileNetV2 projection's shape: a partner of the other sign for every 127";
        }
      }
    }
  }
  if (families == 0) GTEST_SKIP() << "no family that clips weight pairs in this build";
}

TEST(PairClipping, TheFamiliesThatClipAreTheOnesThePublicQuerySays) {
  for (const detail::GemmUkernel& uk : detail::gemm_ukernel_registry()) {
    EXPECT_EQ(uk.clips_pairs, isa_clips_weight_pairs(uk.isa)) << uk.name;
  }
}

// The twin the tuner measures beside a widening family's default: the family of the same registers
// that multiplies the bytes, and only the widening families have one.
TEST(PairClipping, OnlyTheWideningFamiliesHaveATwinThatClips) {
  for (Isa isa : kAllIsas) {
    const std::optional<Isa> twin = pair_clipping_twin(isa);
    EXPECT_EQ(twin.has_value(), isa == Isa::avx2 || isa == Isa::avx512bw) << to_string(isa);
    if (twin) {
      EXPECT_TRUE(isa_clips_weight_pairs(*twin)) << to_string(*twin);
    }
  }
}

TEST(PairClipping, ShareCountsThePairsOfEveryColumn) {
  // 4 x 3, row stride 4: pairs (rows 0-1, rows 2-3) of each column; the 4th column is outside.
  const std::int8_t b[] = {127, 64, -128, 9,  //
                           2,   64, -1,   9,  //
                           0,   -65, 5,   9,  //
                           -1,  -64, 6,   9};
  EXPECT_DOUBLE_EQ(clipped_weight_pair_share(b, 4, 3, 4), 3.0 / 6.0);  // (127,2), (-128,-1), (-65,-64)
  EXPECT_DOUBLE_EQ(clipped_weight_pair_share(b, 1, 3, 4), 0.0);        // no pair
}

// Weights whose pairs sit at and one past the limit in both signs, against activations of 255 (and
// 0, and mixed), through every microkernel that clips pairs, both ways of reading A, fused and
// separate requantization, several K blocks.
std::vector<std::pair<int, int>> boundary_pairs() {
  return {{127, 1},  {127, 2},   {1, 127},   {2, 127},   {64, 64},  {64, 65},   {65, 64},  {-128, 0},
          {-128, -1}, {-1, -128}, {-64, -64}, {-64, -65}, {127, -128}, {-128, 127}, {127, 127}, {-128, -128}};
}

TEST(PairClipping, MicrokernelsAreExactAtTheInt16Limit) {
  const auto pairs = boundary_pairs();
  int ran = 0;
  for (const GemmMicrokernelInfo& info : compiled_microkernels()) {
    if (!isa_clips_weight_pairs(info.isa) || !cpu_features().usable(info.isa)) continue;
    for (const DType a_type : {DType::u8, DType::s8}) {
      for (const bool pack_a : {true, false}) {
        if (!pack_a && !microkernel_reads_a_in_place(info)) continue;
        for (const DType out : {DType::s32, DType::u8}) {
          for (const bool fuse : {true, false}) {
            if (out == DType::s32 && !fuse) continue;
            GemmConfig config = config_for(info, pack_a, fuse);
            config.kc = 16;  // several K blocks: corrections per block
            const std::int64_t m = 7, n = static_cast<std::int64_t>(pairs.size()) + 3, k = 70;
            GemmProblem p;
            p.m = m;
            p.n = n;
            p.k = k;
            p.a_type = a_type;
            // The packed activation a ^ flip is 255 where the input is the type's top value.
            p.a_zero_point = a_type == DType::u8 ? 3 : -3;
            p.b_zero_points = {0};
            p.has_bias = true;
            p.out_type = out;
            if (out != DType::s32) p.requant = RequantParams::make(RoundingMode::tflite, {1.0 / 32768}, 128, 0, 255);
            std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k));
            const std::uint8_t top = a_type == DType::u8 ? 255 : 127, bottom = a_type == DType::u8 ? 0 : 0x80;
            for (std::int64_t i = 0; i < m; ++i) {
              for (std::int64_t kk = 0; kk < k; ++kk) {
                // Rows 0-3 all at the top; later rows alternate top and bottom in patterns.
                const bool high = i < 4 || ((kk >> (i - 4)) & 1) == 0;
                a[static_cast<std::size_t>(i * k + kk)] = high ? top : bottom;
              }
            }
            std::vector<std::int8_t> b(static_cast<std::size_t>(k * n), 0);
            for (std::int64_t kk = 0; kk + 1 < k; kk += 2) {
              for (std::int64_t j = 0; j < n; ++j) {
                const auto& pr = pairs[static_cast<std::size_t>(j + kk / 2) % pairs.size()];
                b[static_cast<std::size_t>(kk * n + j)] = static_cast<std::int8_t>(pr.first);
                b[static_cast<std::size_t>((kk + 1) * n + j)] = static_cast<std::int8_t>(pr.second);
              }
            }
            std::vector<std::int32_t> bias(static_cast<std::size_t>(n), 11);
            const std::size_t elem = out == DType::s32 ? 4 : 1;
            std::vector<std::uint8_t> want(static_cast<std::size_t>(m * n) * elem), got(want.size(), 0xA5);
            gemm_reference(p, a.data(), static_cast<std::size_t>(k), b.data(), static_cast<std::size_t>(n), bias.data(),
                           want.data(), static_cast<std::size_t>(n));
            const GemmOp op = GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(n), bias.data());
            op.run(a.data(), static_cast<std::size_t>(k), got.data(), static_cast<std::size_t>(n));
            EXPECT_EQ(want, got) << describe(config) << " a=" << to_string(a_type) << " out=" << to_string(out);
            ++ran;
          }
        }
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "no usable family that clips weight pairs";
}

// Weights that clip a few pairs (one per column, as trained networks' do), so that the driver
// corrects them one by one (below PairClipping::kDenseShare; in vectors across rows where A is
// packed, GemmUkernel::clipped_products), in K x N order (HWIO for a convolution: N output channels
// innermost).
std::vector<std::int8_t> sparsely_clipping_weights(std::size_t k, std::size_t n, std::mt19937_64& rng) {
  std::vector<std::int8_t> w(k * n);
  for (auto& v : w) v = static_cast<std::int8_t>(std::uniform_int_distribution<int>(-40, 40)(rng));
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t row = std::uniform_int_distribution<std::size_t>(0, k - 2)(rng) & ~std::size_t{1};
    const int sign = j % 2 == 0 ? 1 : -1;
    // Its window's weights of the same sign and above 1, so that choosing the pairs (A packed,
    // gemm/pair_order.h) cannot save the 127 and the corrections are still what is tested.
    const std::size_t window = row / detail::kPairWindowBytes * detail::kPairWindowBytes;
    for (std::size_t r = window; r < std::min(k, window + detail::kPairWindowBytes); ++r) {
      w[r * n + j] = static_cast<std::int8_t>(sign * (2 + std::abs(w[r * n + j]) % 30));
    }
    w[row * n + j] = static_cast<std::int8_t>(sign > 0 ? 127 : -128);
    // Every seventh column's partner as large: the largest excesses (126, and -128 beside -128).
    const int partner = j % 7 == 3 ? (sign > 0 ? 127 : -128) : sign * (2 + static_cast<int>(j % 30));
    w[(row + 1) * n + j] = static_cast<std::int8_t>(partner);
  }
  return w;
}

TEST(PairClipping, MicrokernelsAreExactWithFewClippedPairsEveryWayTheyReadA) {
  int ran = 0;
  std::mt19937_64 rng(11);
  for (const GemmMicrokernelInfo& info : compiled_microkernels()) {
    if (!isa_clips_weight_pairs(info.isa) || !cpu_features().usable(info.isa)) continue;
    for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{37, 45, 300}, {5, 17, 96}, {64, 130, 1030}}) {
      for (const bool pack_a : {true, false}) {
        if (!pack_a && !microkernel_reads_a_in_place(info)) continue;
        for (const int kc : {0, 64}) {
          GemmConfig config = config_for(info, pack_a, true);
          config.kc = kc;
          GemmProblem p;
          p.m = m;
          p.n = n;
          p.k = k;
          p.a_type = ran % 2 == 0 ? DType::u8 : DType::s8;
          p.a_zero_point = p.a_type == DType::u8 ? 130 : -7;
          p.b_zero_points = {0};
          p.has_bias = true;
          p.out_type = DType::s32;
          if (!gemm_check_config(p, config).empty()) continue;
          std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k));
          for (auto& v : a) v = static_cast<std::uint8_t>(rng());
          const auto b = sparsely_clipping_weights(static_cast<std::size_t>(k), static_cast<std::size_t>(n), rng);
          // One clipped weight per column, two weights a pair: below the dense share of weights.
          ASSERT_LT(clipped_weight_pair_share(b.data(), static_cast<std::size_t>(k), static_cast<std::size_t>(n),
                                              static_cast<std::size_t>(n)) / 2,
                    detail::PairClipping::kDenseShare);
          std::vector<std::int32_t> bias(static_cast<std::size_t>(n), -5);
          std::vector<std::int32_t> want(static_cast<std::size_t>(m * n)), got(want.size(), 0x5A5A5A5A);
          gemm_reference(p, a.data(), static_cast<std::size_t>(k), b.data(), static_cast<std::size_t>(n), bias.data(),
                         want.data(), static_cast<std::size_t>(n));
          const GemmOp op = GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(n), bias.data());
          op.run(a.data(), static_cast<std::size_t>(k), got.data(), static_cast<std::size_t>(n));
          EXPECT_EQ(want, got) << describe(config) << " " << m << "x" << n << "x" << k << " a=" << to_string(p.a_type);
          ++ran;
        }
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "no usable family that clips weight pairs";
}

// Packed A in the pair order of B (gemm/pair_order.h) over every K blocking: whole K, and K blocks
// of one, three and four windows, K tails inside a window and on its edge.
TEST(PairClipping, PairsChosenPerWindowAreExactThroughEveryKBlocking) {
  int ran = 0;
  std::mt19937_64 rng(17);
  for (const GemmMicrokernelInfo& info : compiled_microkernels()) {
    if (!isa_clips_weight_pairs(info.isa) || !cpu_features().usable(info.isa)) continue;
    for (const std::int64_t k : {30, 32, 40, 100, 147}) {
      for (const int kc : {0, 16, 48, 64}) {
        GemmConfig config = config_for(info, /*pack_a=*/true, /*fuse=*/true);
        config.kc = kc;
        GemmProblem p;
        p.m = 13;
        p.n = 19;
        p.k = k;
        p.a_type = ran % 2 == 0 ? DType::u8 : DType::s8;
        p.a_zero_point = p.a_type == DType::u8 ? 129 : 5;
        p.b_zero_points = {0};
        p.has_bias = true;
        p.out_type = DType::s32;
        if (!gemm_check_config(p, config).empty()) continue;
        std::vector<std::uint8_t> a(static_cast<std::size_t>(p.m * k));
        for (auto& v : a) v = static_cast<std::uint8_t>(rng());
        std::vector<std::int8_t> b(static_cast<std::size_t>(k * p.n));  // uniform: the order moves most windows
        for (auto& v : b) v = static_cast<std::int8_t>(rng());
        std::vector<std::int32_t> bias(static_cast<std::size_t>(p.n), 21);
        std::vector<std::int32_t> want(static_cast<std::size_t>(p.m * p.n)), got(want.size(), 0x5A5A5A5A);
        gemm_reference(p, a.data(), static_cast<std::size_t>(k), b.data(), static_cast<std::size_t>(p.n), bias.data(),
                       want.data(), static_cast<std::size_t>(p.n));
        const GemmOp op = GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(p.n), bias.data());
        op.run(a.data(), static_cast<std::size_t>(k), got.data(), static_cast<std::size_t>(p.n));
        EXPECT_EQ(want, got) << describe(config) << " k=" << k << " a=" << to_string(p.a_type);
        ++ran;
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "no usable family that clips weight pairs";
}

// The convolutions' ways of giving the GEMM its rows: im2col and indirect (packed), 1x1 in place,
// and implicit (each kernel row's bytes in place, segments walked in the microkernel, padded rows'
// dead segments skipped), with few and with many clipped pairs.
TEST(PairClipping, ConvolutionsAreExactEveryWayTheyFeedTheGemm) {
  int ran = 0;
  std::mt19937_64 rng(13);
  for (const Isa isa : {Isa::avx512ubsw, Isa::avx2ubsw}) {
    if (!cpu_features().usable(isa)) continue;
    for (const ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::gemm_1x1, ConvAlgo::implicit}) {
      for (const bool dense : {false, true}) {
        Conv2dProblem p;
        p.in_h = 9;
        p.in_w = 11;
        p.in_c = 24;
        p.out_c = 40;
        p.kernel_h = p.kernel_w = algo == ConvAlgo::gemm_1x1 ? 1 : 3;
        p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = algo == ConvAlgo::gemm_1x1 ? 0 : 1;
        p.a_zero_point = 140;
        p.b_zero_points = {0};
        p.out_type = DType::s32;
        Conv2dConfig config;
        config.algo = algo;
        config.gemm.isa = isa;
        config.gemm.mr = 4;
        config.gemm.nr = 16;
        config.gemm.pack_a = algo == ConvAlgo::im2col || algo == ConvAlgo::indirect;
        if (const std::string why = conv2d_check_config(p, config); !why.empty()) {
          ADD_FAILURE() << to_string(algo) << ": " << why;
          continue;
        }
        const auto k = static_cast<std::size_t>(p.kernel_h * p.kernel_w * p.in_c), n = static_cast<std::size_t>(p.out_c);
        std::vector<std::int8_t> w = sparsely_clipping_weights(k, n, rng);
        if (dense) {
          for (auto& v : w) v = static_cast<std::int8_t>(rng());
        }
        std::vector<std::uint8_t> input(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c));
        for (auto& v : input) v = static_cast<std::uint8_t>(rng());
        std::vector<std::int32_t> bias(n, 9);
        const std::size_t outputs = static_cast<std::size_t>(p.out_h() * p.out_w()) * n;
        std::vector<std::int32_t> want(outputs), got(outputs, 0x5A5A5A5A);
        conv2d_reference(p, input.data(), w.data(), bias.data(), want.data());
        const Conv2dOp op = Conv2dOp::prepare(p, config, w.data(), bias.data());
        op.run(input.data(), got.data());
        EXPECT_EQ(want, got) << to_string(isa) << " " << to_string(algo) << (dense ? " many clipped" : " few clipped");
        ++ran;
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "no usable family that clips weight pairs";
}

}  // namespace
}  // namespace qtune::testing
