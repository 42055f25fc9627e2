// Every compiled scalar/x86/Arm GEMM microkernel through the one tester (gemm_tester.h), bit-exact with
// gemm_reference:
//   GemmShapes:   the full shape sweep per microkernel x pack_a (M, N, K around the tile and primes,
//                 K not a multiple of the k group) with s32 output and non-zero zero points on both
//                 sides, for u8 and s8 activations.
//   GemmVariants: microkernel x fused/separate x out type x activation type x pack_a, each over the
//                 quantization sweep (every RoundingMode, per-tensor/per-channel requant, zero and
//                 non-zero activation zero points, zero/per-tensor/per-channel weight zero points,
//                 narrow clamps, no bias / wrapping bias) on two ragged shapes.
// Variants this CPU cannot run are skipped with the ISA's name.
#include <string>
#include <vector>

#include "kernels/gemm_tester.h"
#include "kernels/src/gemm/gemm_driver.h"

namespace qtune::testing {
namespace {

// ---- shape sweep ---------------------------------------------------------------------------------

struct ShapeParam {
  GemmMicrokernelInfo uk;
  bool pack_a;
};

std::vector<ShapeParam> shape_params() {
  std::vector<ShapeParam> out;
  for (const auto& uk : compiled_microkernels()) {
    out.push_back({uk, true});
    if (microkernel_reads_a_in_place(uk)) out.push_back({uk, false});
  }
  return out;
}

class GemmShapes : public ::testing::TestWithParam<ShapeParam> {};

TEST_P(GemmShapes, BitExactOverShapeSweep) {
  const auto& [uk, pack_a] = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(uk.isa);
  const GemmConfig config = config_for(uk, pack_a, true);
  const std::vector<std::int64_t> ms = {1, uk.mr - 1, uk.mr, uk.mr + 1, 2 * uk.mr + 3};
  const std::vector<std::int64_t> ns = {1, uk.nr - 1, uk.nr, uk.nr + 1, 2 * uk.nr + 5};
  const std::vector<std::int64_t> ks = {1, 2, 3, 4, 5, 7, 16, 31, 67};
  std::uint64_t seed = 1;
  for (DType a_type : {DType::u8, DType::s8}) {
    for (std::int64_t m : ms) {
      for (std::int64_t n : ns) {
        for (std::int64_t k : ks) {
          if (m < 1 || n < 1) continue;
          GemmCase t;
          t.m = m;
          t.n = n;
          t.k = k;
          t.a_type = a_type;
          t.out_type = DType::s32;
          t.b_zero_points = ZeroPoints::per_channel;
          t.seed = seed++;
          expect_gemm_matches_reference(t, config);
          if (HasFailure()) return;  // one broken variant, one report
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllMicrokernels, GemmShapes, ::testing::ValuesIn(shape_params()),
                         [](const ::testing::TestParamInfo<ShapeParam>& info) {
                           return tile_id(info.param.uk) + (info.param.pack_a ? "_packA" : "_inPlaceA");
                         });

// ---- variant x quantization sweep ----------------------------------------------------------------

struct VariantParam {
  GemmMicrokernelInfo uk;
  bool pack_a;
  bool fuse;
  DType out_type;
  DType a_type;
};

std::vector<VariantParam> variant_params() {
  std::vector<VariantParam> out;
  for (const auto& uk : compiled_microkernels()) {
    for (bool pack_a : {true, false}) {
      if (!pack_a && !microkernel_reads_a_in_place(uk)) continue;
      for (bool fuse : {true, false}) {
        for (DType out_type : {DType::s32, DType::u8, DType::s8}) {
          if (out_type == DType::s32 && !fuse) continue;  // fuse has no meaning without requantization
          for (DType a_type : {DType::u8, DType::s8}) out.push_back({uk, pack_a, fuse, out_type, a_type});
        }
      }
    }
  }
  return out;
}

class GemmVariants : public ::testing::TestWithParam<VariantParam> {};

// Under the sanitizers the requantizing sweep runs every fifth of its cases, the choice rotating
// with the zero points so that each mode, per-tensor and per-channel, still meets both shapes: the
// sanitizers' findings depend on the shape and on the epilogue's path, not on the draws, and the
// unsanitized builds run every case for exactness.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint64_t kRequantCaseStride = 5;
#else
constexpr std::uint64_t kRequantCaseStride = 1;
#endif

TEST_P(GemmVariants, BitExactOverQuantizationSweep) {
  const VariantParam& v = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(v.uk.isa);
  const GemmConfig config = config_for(v.uk, v.pack_a, v.fuse);
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{2 * v.uk.mr + 1, 2 * v.uk.nr + 3, 37}, {v.uk.mr - 1 > 0 ? v.uk.mr - 1 : 1, v.uk.nr + 1, 130}};
  std::uint64_t seed = 100;
  std::uint64_t zero_point_case = 0;
  for (const Shape& s : shapes) {
    for (ZeroPoints zb : {ZeroPoints::zero, ZeroPoints::per_tensor, ZeroPoints::per_channel}) {
      for (bool za : {false, true}) {
        ++zero_point_case;
        GemmCase t;
        t.m = s.m;
        t.n = s.n;
        t.k = s.k;
        t.a_type = v.a_type;
        t.out_type = v.out_type;
        t.a_zero_point_nonzero = za;
        t.b_zero_points = zb;
        if (v.out_type == DType::s32) {
          for (int bias = 0; bias < 3; ++bias) {  // none, moderate, whole int32 range (wrapping)
            t.has_bias = bias != 0;
            t.wide_bias = bias == 2;
            t.seed = seed++;
            expect_gemm_matches_reference(t, config);
          }
          continue;
        }
        std::uint64_t requant_case = zero_point_case;
        for (RoundingMode mode : kAllRoundingModes) {
          for (bool per_channel : {false, true}) {
            t.mode = mode;
            t.per_channel_requant = per_channel;
            t.narrow_clamp = (seed % 3) == 0;
            t.relu = (seed % 4) == 1;
            t.has_bias = (seed % 5) != 0;
            t.seed = seed++;
            if (requant_case++ % kRequantCaseStride == 0) expect_gemm_matches_reference(t, config);
          }
        }
        if (HasFailure()) return;
      }
    }
  }
}

// Every mode, per-tensor and per-channel, over scales drawn as `scales` says.
void expect_every_mode_matches(const VariantParam& v, ScaleDraw scales, std::uint64_t seed, bool wide_bias = false) {
  const GemmConfig config = config_for(v.uk, v.pack_a, v.fuse);
  for (RoundingMode mode : kAllRoundingModes) {
    for (bool per_channel : {false, true}) {
      GemmCase t;
      t.m = 2 * v.uk.mr + 1;
      t.n = 2 * v.uk.nr + 3;
      t.k = 37;
      t.a_type = v.a_type;
      t.out_type = v.out_type;
      t.b_zero_points = per_channel ? ZeroPoints::per_channel : ZeroPoints::per_tensor;
      t.mode = mode;
      t.per_channel_requant = per_channel;
      t.scales = scales;
      t.wide_bias = wide_bias;
      t.narrow_clamp = (seed % 3) == 0;
      t.seed = seed++;
      expect_gemm_matches_reference(t, config);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// Plans whose scales reach 1/2 and beyond (left shifts, r = 0) next to small ones: the epilogues'
// general forms (on Arm those of arm/neon/requant_neon.h; on x86 the paths without the short u8
// epilogue), which the quantization sweep's scales (all below 1/2) never take.
TEST_P(GemmVariants, BitExactWithScalesAroundOne) {
  const VariantParam& v = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(v.uk.isa);
  if (v.out_type == DType::s32) GTEST_SKIP() << "no requantization";
  expect_every_mode_matches(v, ScaleDraw::around_one, 500);
}

// The same plans over accumulators anywhere in int32 (a bias over the whole range): the Arm general
// forms of upward and tonearest shift them left with saturation first, which must clamp exactly.
TEST_P(GemmVariants, BitExactWithScalesAroundOneOverWideAccumulators) {
  const VariantParam& v = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(v.uk.isa);
  if (v.out_type == DType::s32) GTEST_SKIP() << "no requantization";
  expect_every_mode_matches(v, ScaleDraw::around_one, 900, true);
}

// Plans whose every scale lies below 1/2 (the Arm short forms of tflite, arm and upward) but whose
// products can tie: tflite's ties away from zero in its short form, and tonearest's general form
// (its short form, upward's, would round those ties up).
TEST_P(GemmVariants, BitExactWithScalesThatTie) {
  const VariantParam& v = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(v.uk.isa);
  if (v.out_type == DType::s32) GTEST_SKIP() << "no requantization";
  expect_every_mode_matches(v, ScaleDraw::tying, 700);
}

// ---- in-tile row sums ----------------------------------------------------------------------------
// The microkernels that sum A's rows themselves (GemmUkernel::fn_row_sums) run only with A in place,
// a weight zero point, one K block and shapes where tile_row_sums_pay: K from one partial chunk to
// several whole ones with a ragged last group, one to several M panels per call, both activation
// types (the s8 flip), per-tensor and per-channel weight zero points, s32 and requantized output.

std::vector<GemmMicrokernelInfo> row_summing_microkernels() {
  std::vector<GemmMicrokernelInfo> out;
  for (const auto& uk : compiled_microkernels()) {
    if (detail::find_gemm_ukernel(uk.isa, uk.mr, uk.nr)->fn_row_sums != nullptr) out.push_back(uk);
  }
  return out;
}

class GemmTileRowSums : public ::testing::TestWithParam<GemmMicrokernelInfo> {};

TEST_P(GemmTileRowSums, BitExactWhereTheTileSumsTheRows) {
  const GemmMicrokernelInfo& uk = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(uk.isa);
  std::uint64_t seed = 500;
  for (std::int64_t k : {89, 128, 131, 255, 1031}) {
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{uk.nr} - 1, std::int64_t{uk.nr}, 2 * std::int64_t{uk.nr} - 3}) {
      if (n < 1) continue;
      const auto n_panels = static_cast<std::size_t>((n + uk.nr - 1) / uk.nr);
      if (!detail::tile_row_sums_pay(static_cast<std::size_t>(k), n_panels)) continue;
      for (std::int64_t m : {std::int64_t{1}, std::int64_t{uk.mr}, 5 * std::int64_t{uk.mr} + 2}) {
        for (DType a_type : {DType::u8, DType::s8}) {
          for (ZeroPoints zb : {ZeroPoints::per_tensor, ZeroPoints::per_channel}) {
            for (DType out_type : {DType::s32, DType::u8}) {
              GemmCase t;
              t.m = m;
              t.n = n;
              t.k = k;
              t.a_type = a_type;
              t.b_zero_points = zb;
              t.out_type = out_type;
              t.mode = seed % 2 == 0 ? RoundingMode::tflite : RoundingMode::fp32;
              t.lda_pad = seed % 3;  // rows not back to back: the tile's loads start anywhere
              t.seed = seed++;
              expect_gemm_matches_reference(t, config_for(uk, false, true));
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RowSummingMicrokernels, GemmTileRowSums, ::testing::ValuesIn(row_summing_microkernels()),
                         [](const ::testing::TestParamInfo<GemmMicrokernelInfo>& info) { return tile_id(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmTileRowSums);

TEST(GemmTileRowSums, PayOnlyWhereLongRowsMeetFewColumnPanels) {
  EXPECT_TRUE(detail::tile_row_sums_pay(144, 1));
  EXPECT_TRUE(detail::tile_row_sums_pay(768, 3));
  EXPECT_FALSE(detail::tile_row_sums_pay(64, 1));
  EXPECT_FALSE(detail::tile_row_sums_pay(64, 6));
  EXPECT_FALSE(detail::tile_row_sums_pay(100000, 6));
}

TEST(GemmSweeps, CoverEveryCompiledInstructionSet) {
  expect_sweep_covers_every_isa(shape_params());
  expect_sweep_covers_every_isa(variant_params());
}

INSTANTIATE_TEST_SUITE_P(AllVariants, GemmVariants, ::testing::ValuesIn(variant_params()),
                         [](const ::testing::TestParamInfo<VariantParam>& info) {
                           const VariantParam& v = info.param;
                           return tile_id(v.uk) + (v.pack_a ? "_packA" : "_inPlaceA") + (v.fuse ? "_fused" : "_separate") +
                                  "_out" + std::string(to_string(v.out_type)) + "_a" + std::string(to_string(v.a_type));
                         });

}  // namespace
}  // namespace qtune::testing
