// The inverted-residual block (executor/src/fused_inverted_residual.h) against its three
// convolutions run whole by the scalar reference, one after the other: every usable depthwise
// kernel (fused and separate requantization, so the vpdpbusd forms where they apply) beside a GEMM
// microkernel of its family for the pointwise members; with and without the expansion; strides 1
// and 2, padding on both sides, on one side only, none, a 5x5 and a dilated kernel; ragged sizes,
// batches, u8 and s8, extreme zero points and scales, every rounding mode; strips of one row up to
// the whole image, 1 to 3 threads.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "executor/src/fused_inverted_residual.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace fused_inverted_residual_test {

using namespace qtune;
using namespace qtune::executor;

struct Case {
  std::int64_t n, h, w, in_c, expanded_c, out_c;  // expanded_c = in_c without an expansion
  bool expand;
  std::int64_t kernel, stride, dilation, pad_top, pad_bottom, pad_left, pad_right;
  DType type;                     // every member's input and 8-bit output
  std::int32_t zero_points[3];    // the block input's, the expanded tensor's, the middle output's
  double scale;                   // each member's outputs spread over about 30 x this steps
  DType out_type;
};

std::int32_t low(DType t) { return t == DType::u8 ? 0 : -128; }
std::int32_t high(DType t) { return t == DType::u8 ? 255 : 127; }

struct Member {
  Conv2dProblem problem;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;
};

Member member(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t in_c, std::int64_t out_c, std::int64_t groups,
              std::int32_t in_zp, std::int32_t out_zp, DType in_type, DType out_type, double scale, RoundingMode mode,
              std::mt19937& rng) {
  Member m;
  Conv2dProblem& p = m.problem;
  p.batch = n;
  p.in_h = h;
  p.in_w = w;
  p.in_c = in_c;
  p.out_c = out_c;
  p.groups = groups;
  p.a_type = in_type;
  p.a_zero_point = in_zp;
  p.out_type = out_type;
  const std::int64_t k = in_c / groups;
  std::vector<double> scales(static_cast<std::size_t>(rng() % 2 ? out_c : 1));
  // Sums of uniform bytes spread as sqrt(K) times about 128 x 74: outputs spread over about 30 x scale steps.
  for (auto& s : scales) s = scale * std::uniform_real_distribution<double>(0.5, 2.0)(rng) / (300.0 * std::sqrt(static_cast<double>(k)));
  const std::int32_t lo = out_type == DType::s32 ? -128 : low(out_type), hi = out_type == DType::s32 ? 127 : high(out_type);
  if (out_type != DType::s32) p.requant = RequantParams::make(mode, scales, out_zp, lo, hi);
  p.b_zero_points = {0};
  m.bias.resize(static_cast<std::size_t>(out_c));
  for (auto& b : m.bias) b = static_cast<std::int32_t>(rng() % 4001) - 2000;
  return m;
}

void fill_weights(Member& m, std::mt19937& rng) {
  const Conv2dProblem& p = m.problem;
  m.weights.resize(static_cast<std::size_t>(p.out_c * p.kernel_h * p.kernel_w * (p.in_c / p.groups)));
  // Uniform bytes, with the extremes in every tenth weight.
  for (std::size_t i = 0; i < m.weights.size(); ++i)
    m.weights[i] = i % 10 == 3 ? std::int8_t{-128} : i % 10 == 7 ? std::int8_t{127} : static_cast<std::int8_t>(rng());
}

Conv2dConfig gemm_config(Isa isa, const Conv2dProblem& p, bool fuse) {
  for (const GemmMicrokernelInfo& uk : gemm_microkernels()) {
    if (uk.isa != isa) continue;
    for (const bool pack_a : {false, true}) {
      Conv2dConfig c;
      c.algo = ConvAlgo::gemm_1x1;
      c.gemm.isa = isa;
      c.gemm.mr = uk.mr;
      c.gemm.nr = uk.nr;
      c.gemm.pack_a = pack_a;
      c.gemm.fuse_requant = fuse;
      if (conv2d_check_config(p, c).empty()) return c;
    }
  }
  return conv2d_default_config(p);
}

// Runs one case on `kernel`'s family: false where a member's configuration does not apply.
bool check(const Case& c, const DepthwiseKernelInfo& kernel, bool fuse, RoundingMode mode, std::int64_t rows, int threads,
           std::mt19937& rng) {
  const DType t = c.type;
  const std::int32_t zp_in = c.zero_points[0], zp_expanded = c.zero_points[1], zp_middle = c.zero_points[2];
  std::optional<Member> expand;
  if (c.expand) {
    expand = member(c.n, c.h, c.w, c.in_c, c.expanded_c, 1, zp_in, zp_expanded, t, t, c.scale, mode, rng);
    fill_weights(*expand, rng);
  }
  Member middle = member(c.n, c.h, c.w, c.expanded_c, c.expanded_c, c.expanded_c, c.expand ? zp_expanded : zp_in, zp_middle,
                         t, t, c.scale, mode, rng);
  Conv2dProblem& mp = middle.problem;
  mp.kernel_h = mp.kernel_w = c.kernel;
  mp.stride_h = mp.stride_w = c.stride;
  mp.dilation_h = mp.dilation_w = c.dilation;
  mp.pad_top = c.pad_top;
  mp.pad_bottom = c.pad_bottom;
  mp.pad_left = c.pad_left;
  mp.pad_right = c.pad_right;
  fill_weights(middle, rng);
  Member project = member(c.n, mp.out_h(), mp.out_w(), c.expanded_c, c.out_c, 1, zp_middle, 5, t, c.out_type, c.scale, mode, rng);
  fill_weights(project, rng);

  Conv2dConfig middle_config;
  middle_config.algo = ConvAlgo::depthwise;
  middle_config.gemm.isa = kernel.isa;
  middle_config.gemm.fuse_requant = fuse;
  middle_config.dw_channel_tile = kernel.channel_tile;
  middle_config.dw_width_tile = kernel.width_tile;
  if (!conv2d_check_config(mp, middle_config).empty()) return false;
  const Conv2dConfig expand_config = expand ? gemm_config(kernel.isa, expand->problem, fuse) : Conv2dConfig{};
  const Conv2dConfig project_config = gemm_config(kernel.isa, project.problem, !fuse);

  const auto elements = [](const Conv2dProblem& p, bool out) {
    return static_cast<std::size_t>(p.batch * (out ? p.out_h() * p.out_w() * p.out_c : p.in_h * p.in_w * p.in_c));
  };
  const Conv2dProblem& first = expand ? expand->problem : mp;
  std::vector<std::uint8_t> input(elements(first, false));
  for (auto& x : input) x = static_cast<std::uint8_t>(rng());
  // Extreme activations in a few pixels: the zero point's far ends.
  for (std::size_t i = 0; i < input.size(); i += 29) input[i] = static_cast<std::uint8_t>(i % 2 ? high(t) : low(t));

  std::vector<std::uint8_t> expanded(expand ? elements(expand->problem, true) : 0), middle_out(elements(mp, true));
  const std::size_t out_bytes = c.out_type == DType::s32 ? 4 : 1;
  std::vector<std::uint8_t> expected(elements(project.problem, true) * out_bytes), got(expected.size(), 0xA5);
  if (expand) conv2d_reference(expand->problem, input.data(), expand->weights.data(), expand->bias.data(), expanded.data());
  conv2d_reference(mp, expand ? expanded.data() : input.data(), middle.weights.data(), middle.bias.data(), middle_out.data());
  conv2d_reference(project.problem, middle_out.data(), project.weights.data(), project.bias.data(), expected.data());

  std::optional<BlockMember> expand_member;
  if (expand) expand_member = BlockMember{expand->problem, expand_config, expand->weights.data(), expand->bias.data()};
  const FusedInvertedResidual block(expand_member, {mp, middle_config, middle.weights.data(), middle.bias.data()},
                                    {project.problem, project_config, project.weights.data(), project.bias.data()}, rows,
                                    threads);
  EXPECT_EQ(block.strips(), c.n * ((mp.out_h() + rows - 1) / rows));
  std::vector<std::uint8_t> scratch(block.scratch_bytes());
  block.run(input.data(), got.data(), scratch.data());
  std::size_t differing = 0, first_at = expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i] != expected[i] && differing++ == 0) first_at = i;
  const auto row_bytes = static_cast<std::size_t>(mp.out_w() * c.out_c) * out_bytes;
  EXPECT_EQ(differing, 0u) << "first at byte " << first_at << " (output row " << first_at / row_bytes << ")";
  // The intermediates are not all one value (the comparison would then say little).
  EXPECT_GT(std::set<std::uint8_t>(middle_out.begin(), middle_out.end()).size(), 8u);
  return true;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // MobileNetV2's stride-1 and stride-2 blocks, small and ragged.
      {1, 9, 11, 8, 48, 16, true, 3, 1, 1, 1, 1, 1, 1, DType::u8, {128, 0, 0}, 6.0, DType::u8},
      {2, 10, 7, 16, 64, 24, true, 3, 2, 1, 1, 1, 1, 1, DType::u8, {3, 250, 1}, 4.0, DType::u8},
      // TensorFlow's SAME at stride 2: padding at the bottom and right only.
      {1, 13, 6, 24, 96, 8, true, 3, 2, 1, 0, 1, 0, 1, DType::s8, {-128, 127, -5}, 3.0, DType::s8},
      // No expansion (MobileNetV2's first block), 32 channels at stride 1.
      {1, 7, 12, 32, 32, 40, false, 3, 1, 1, 1, 1, 1, 1, DType::u8, {255, 0, 17}, 5.0, DType::u8},
      // A 5x5 kernel, a dilated 3x3 one, no padding at all, int32 sums out.
      {1, 12, 9, 8, 40, 8, true, 5, 1, 1, 2, 2, 2, 2, DType::s8, {0, -128, 127}, 8.0, DType::s8},
      {1, 11, 10, 5, 72, 9, true, 3, 1, 2, 2, 2, 2, 2, DType::u8, {17, 128, 200}, 2.0, DType::u8},
      {1, 8, 8, 8, 16, 8, true, 3, 1, 1, 0, 0, 0, 0, DType::u8, {128, 128, 128}, 6.0, DType::s32},
  };
  return all;
}

TEST(FusedInvertedResidual, EqualsItsConvolutionsOneByOneOnEveryUsableKernel) {
  std::mt19937 rng(53);
  int checked = 0, runs = 0;
  std::vector<int> checked_per_case(cases().size());
  for (const DepthwiseKernelInfo& kernel : depthwise_kernels()) {
    if (!cpu_features().usable(kernel.isa) || !kernel.form.empty()) continue;
    for (std::size_t i = 0; i < cases().size(); ++i) {
      const Case& c = cases()[i];
      const bool fuse = (runs + static_cast<int>(i)) % 2 == 0;
      const RoundingMode mode = kAllRoundingModes[static_cast<std::size_t>(runs) % kAllRoundingModes.size()];
      const int threads = 1 + runs % 3;
      // Strips of one row, a few rows, and the whole image.
      const std::int64_t out_h = (c.h + c.pad_top + c.pad_bottom - (c.kernel - 1) * c.dilation - 1) / c.stride + 1;
      const std::int64_t rows = runs % 3 == 0 ? 1 : runs % 3 == 1 ? std::min<std::int64_t>(3, out_h) : out_h;
      SCOPED_TRACE(kernel.name + " case " + std::to_string(i) + (fuse ? " fused" : " separate") + " mode " +
                   std::string(to_string(mode)) + " rows " + std::to_string(rows) + " threads " + std::to_string(threads));
      ++runs;
      if (check(c, kernel, fuse, mode, rows, threads, rng)) {
        ++checked;
        ++checked_per_case[i];
      }
    }
  }
  EXPECT_GT(checked, 0);
  for (std::size_t i = 0; i < cases().size(); ++i) EXPECT_GT(checked_per_case[i], 0) << "case " << i << " ran on no kernel";
}

TEST(FusedInvertedResidual, PlannedStripsFitTheTargetAndShareTheThreads) {
  for (const std::size_t target : {std::size_t{64} << 10, std::size_t{256} << 10}) {
    for (const int threads : {1, 2, 3}) {
      for (const auto& [h, c, stride] :
           std::vector<std::array<std::int64_t, 3>>{{112, 96, 2}, {56, 144, 1}, {28, 192, 1}, {14, 576, 1}, {7, 960, 1}}) {
        Conv2dProblem expand, middle;
        expand.in_h = middle.in_h = h;
        expand.in_w = middle.in_w = h;
        expand.in_c = c / 6;
        expand.out_c = middle.in_c = middle.out_c = middle.groups = c;
        middle.kernel_h = middle.kernel_w = 3;
        middle.stride_h = middle.stride_w = stride;
        middle.pad_top = middle.pad_bottom = middle.pad_left = middle.pad_right = 1;
        const std::int64_t rows = plan_inverted_residual_rows(&expand, middle, target, 64, threads);
        const std::int64_t out_h = middle.out_h(), out_w = middle.out_w();
        const auto bytes = [&](std::int64_t r) { return std::min((r - 1) * stride + 3, h) * h * c + r * out_w * c; };
        SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(c) + " threads " + std::to_string(threads) + " target " +
                     std::to_string(target));
        if (bytes(out_h) <= static_cast<std::int64_t>(target)) {
          EXPECT_EQ(rows, 0) << "the whole intermediates fit: no block";
          continue;
        }
        if (rows == 0) {
          // No height gives every thread two strips shared evenly.
          for (std::int64_t r = 1; r <= out_h; ++r) {
            const std::int64_t n = (out_h + r - 1) / r;
            EXPECT_FALSE(n >= 2 * threads && (n % threads == 0 || n >= 4 * threads)) << r;
          }
          continue;
        }
        const std::int64_t strips = (out_h + rows - 1) / rows;
        EXPECT_GE(strips, 2 * threads);
        EXPECT_TRUE(strips % threads == 0 || strips >= 4 * threads) << strips << " strips of " << rows;
        // Within the target above the least height of 64 output pixels.
        if (rows > (64 + out_w - 1) / out_w) {
          EXPECT_LE(bytes(rows), static_cast<std::int64_t>(target));
        }
      }
    }
  }
  // The shapes the executor fuses at 256 KiB: the 112x112 and 56x56 stages, not the 14x14 and 7x7 ones.
  Conv2dProblem expand, middle;
  expand.in_h = expand.in_w = middle.in_h = middle.in_w = 14;
  expand.in_c = 96;
  expand.out_c = middle.in_c = middle.out_c = middle.groups = 576;
  middle.kernel_h = middle.kernel_w = 3;
  middle.pad_top = middle.pad_bottom = middle.pad_left = middle.pad_right = 1;
  EXPECT_EQ(plan_inverted_residual_rows(&expand, middle, 256 << 10, 64, 1), 0);
}

TEST(FusedInvertedResidual, ChainsThatAreNoBlockAreNamed) {
  Conv2dProblem expand, middle, project;
  expand.in_h = expand.in_w = middle.in_h = middle.in_w = 8;
  expand.in_c = 8;
  expand.out_c = middle.in_c = middle.out_c = middle.groups = project.in_c = 16;
  middle.kernel_h = middle.kernel_w = 3;
  middle.pad_top = middle.pad_bottom = middle.pad_left = middle.pad_right = 1;
  project.in_h = project.in_w = 8;
  project.out_c = 4;
  expand.out_type = middle.a_type = middle.out_type = project.a_type = DType::u8;
  EXPECT_EQ(inverted_residual_mismatch(&expand, middle, project), "");
  EXPECT_EQ(inverted_residual_mismatch(nullptr, middle, project), "");
  Conv2dProblem wide = expand;
  wide.kernel_h = 3;
  EXPECT_NE(inverted_residual_mismatch(&wide, middle, project).find("expansion is not pointwise"), std::string::npos);
  Conv2dProblem sums = expand;
  sums.out_type = DType::s32;
  EXPECT_NE(inverted_residual_mismatch(&sums, middle, project).find("not 8-bit"), std::string::npos);
  Conv2dProblem other = project;
  other.in_c = 12;
  EXPECT_NE(inverted_residual_mismatch(&expand, middle, other).find("not the projection's input"), std::string::npos);
  Conv2dProblem strided = middle;
  strided.stride_h = strided.stride_w = 2;
  EXPECT_NE(inverted_residual_mismatch(&expand, strided, project).find("not the projection's input"), std::string::npos);
  EXPECT_THROW(FusedInvertedResidual(std::nullopt, {middle, {}, nullptr, nullptr}, {other, {}, nullptr, nullptr}, 2, 1),
               std::invalid_argument);
}

}  // namespace fused_inverted_residual_test
