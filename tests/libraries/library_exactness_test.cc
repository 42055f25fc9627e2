// Every library configuration that is offered for a layer is bit-exact with the reference: the
// oneDNN layers on the shared conv2d sweep (every shape x every quantization kind, 1 and 2
// threads) and on a GEMM sweep of shapes x zero points x bias x output type x rounding x strides;
// sums beyond 2^24 stay exact; what is not offered (library_*_unsupported() non-empty) is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "kernels/conv2d_sweep.h"
#include "kernels/gemm_tester.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_ops.h"
#include "qtune/libraries/library_registry.h"

namespace qtune {
namespace {

using libraries::library_conv2d_unsupported;
using libraries::library_gemm_unsupported;

#define QTUNE_SKIP_UNLESS_LIBRARY(name)                                                    \
  do {                                                                                     \
    if (const std::string why = libraries::library_unavailable(name); !why.empty()) {      \
      GTEST_SKIP() << why;                                                                 \
    }                                                                                      \
  } while (0)

auto library_conv2d(const Conv2dProblem& p, const char* library, int threads) {
  return [&p, library, threads](const testing::ConvData& d) {
    std::shared_ptr<const libraries::LibraryConv2d> op =
        libraries::prepare_library_conv2d(library, p, d.weights.data(), p.has_bias ? d.bias.data() : nullptr, threads);
    return [op](const void* input, void* output) { op->run(input, output); };
  };
}

TEST(OnednnConv2d, BitExactOnTheConvSweepWhereOffered) {
  QTUNE_SKIP_UNLESS_LIBRARY("onednn");
  std::vector<testing::Shape> shapes = testing::kGeneralShapes;
  shapes.insert(shapes.end(), testing::kDepthwiseShapes.begin(), testing::kDepthwiseShapes.end());
  int offered = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    for (std::size_t qi = 0; qi < testing::quant_kinds().size(); ++qi) {
      const Conv2dProblem p =
          testing::make_problem(shapes[si], testing::quant_kinds()[qi], static_cast<std::uint32_t>(si * 13 + qi));
      const std::string why = library_conv2d_unsupported("onednn", p);
      // The sweep's sums stay below 2^24, where every oneDNN int8 implementation with a dot
      // product instruction is exact: everything is offered (weight zero points included).
      EXPECT_EQ(why, "") << testing::describe(p);
      if (!why.empty()) continue;
      for (int threads : {1, 2}) {
        testing::expect_prepared_matches_reference(p, "onednn threads " + std::to_string(threads),
                                                   static_cast<std::uint32_t>(si), library_conv2d(p, "onednn", threads));
        ++offered;
      }
    }
  }
  EXPECT_EQ(offered, static_cast<int>(shapes.size() * testing::quant_kinds().size()) * 2);
}

// A layer whose dot products can overflow int32 (the reference wraps, oneDNN need not) is refused,
// and preparing it anyway names why.
TEST(OnednnLayers, RefuseAccumulatorsThatCanOverflow) {
  QTUNE_SKIP_UNLESS_LIBRARY("onednn");
  Conv2dProblem conv = testing::make_problem(testing::kGeneralShapes[0], testing::quant_kinds()[0], 1);
  conv.in_c = 70000;
  EXPECT_NE(library_conv2d_unsupported("onednn", conv).find("overflow"), std::string::npos);
  EXPECT_THROW(libraries::prepare_library_conv2d("onednn", conv, nullptr, nullptr, 1), std::invalid_argument);
  GemmProblem gemm;
  gemm.m = gemm.n = 1;
  gemm.k = 70000;
  gemm.out_type = DType::s32;
  EXPECT_NE(library_gemm_unsupported("onednn", gemm).find("overflow"), std::string::npos);
}

auto library_gemm(const char* library, int threads) {
  return [library, threads](const testing::GemmData& d) {
    std::shared_ptr<const libraries::LibraryGemm> op = libraries::prepare_library_gemm(
        library, d.problem, d.b.data(), d.ldb, d.problem.has_bias ? d.bias.data() : nullptr, threads);
    return [op](const void* a, std::size_t lda, void* c, std::size_t ldc) { op->run(a, lda, c, ldc); };
  };
}

TEST(OnednnGemm, BitExactOnTheGemmSweep) {
  QTUNE_SKIP_UNLESS_LIBRARY("onednn");
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1}, {7, 13, 37}, {33, 70, 130}, {64, 48, 1200}};
  using testing::GemmCase;
  using testing::ZeroPoints;
  std::uint64_t seed = 1;
  int ran = 0;
  for (const Shape& s : shapes) {
    for (DType a_type : {DType::u8, DType::s8}) {
      for (ZeroPoints zb : {ZeroPoints::zero, ZeroPoints::per_tensor, ZeroPoints::per_channel}) {
        GemmCase t;
        t.m = s.m;
        t.n = s.n;
        t.k = s.k;
        t.a_type = a_type;
        t.b_zero_points = zb;
        t.lda_pad = seed % 3;
        t.ldc_pad = seed % 2;
        t.seed = seed++;
        t.out_type = DType::s32;
        for (int bias = 0; bias < 3; ++bias) {  // none, moderate, whole int32 range (wrapping)
          t.has_bias = bias != 0;
          t.wide_bias = bias == 2;
          t.a_zero_point_nonzero = bias != 1;
          ASSERT_EQ(library_gemm_unsupported("onednn", make_gemm_data(t).problem), "");
          testing::expect_prepared_gemm_matches_reference(t, "onednn", library_gemm("onednn", 1 + bias % 2), 2);
          ++ran;
        }
        t.has_bias = true;
        t.wide_bias = false;
        for (DType out_type : {DType::u8, DType::s8}) {
          for (RoundingMode mode : kAllRoundingModes) {
            t.out_type = out_type;
            t.mode = mode;
            t.per_channel_requant = (seed & 1) != 0;
            t.narrow_clamp = (seed & 2) != 0;
            t.a_zero_point_nonzero = (seed & 4) != 0;
            t.seed = seed++;
            testing::expect_prepared_gemm_matches_reference(t, "onednn", library_gemm("onednn", 1 + seed % 2));
            ++ran;
          }
        }
      }
    }
  }
  EXPECT_EQ(ran, 4 * 2 * 3 * (3 + 2 * 5));
}

// Sums far beyond 2^24 with an odd low part: an implementation that passes int32 through float
// (oneDNN's non-brgemm int8 kernels, or zero points and bias given to oneDNN) would round them.
TEST(OnednnLayers, ExactBeyondFloatPrecision) {
  QTUNE_SKIP_UNLESS_LIBRARY("onednn");
  Conv2dProblem conv;  // 3x3 over 512 channels with padding: K = 4608, border classes, weight zero point
  conv.in_h = conv.in_w = 4;
  conv.in_c = 512;
  conv.out_c = 64;
  conv.kernel_h = conv.kernel_w = 3;
  conv.pad_top = conv.pad_bottom = conv.pad_left = conv.pad_right = 1;
  conv.a_zero_point = 3;
  conv.b_zero_points = {-5};
  conv.out_type = DType::s32;
  conv.has_bias = true;
  ASSERT_EQ(library_conv2d_unsupported("onednn", conv), "");
  std::vector<std::uint8_t> input(static_cast<std::size_t>(16 * conv.in_c));
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = i % 7 == 0 ? 254 : 255;
  std::vector<std::int8_t> weights(static_cast<std::size_t>(9 * conv.in_c * conv.out_c));
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = i % 5 == 0 ? 127 : 126;
  const std::vector<std::int32_t> bias(64, 1);
  std::vector<std::int32_t> expected(16 * 64), got(16 * 64);
  conv2d_reference(conv, input.data(), weights.data(), bias.data(), expected.data());
  ASSERT_GT(expected[5 * 64], 1 << 27);  // an interior pixel
  libraries::prepare_library_conv2d("onednn", conv, weights.data(), bias.data(), 1)->run(input.data(), got.data());
  EXPECT_EQ(got, expected);

  GemmProblem gemm;
  gemm.m = 1;  // the same bytes: one row of K = 4608 against 4608 x 64 weights
  gemm.n = 64;
  gemm.k = 4608;
  gemm.a_zero_point = 3;
  gemm.b_zero_points = {-5};
  gemm.out_type = DType::s32;
  ASSERT_EQ(library_gemm_unsupported("onednn", gemm), "");
  std::vector<std::int32_t> expected_gemm(64), got_gemm(64);
  gemm_reference(gemm, input.data(), 4608, weights.data(), 64, bias.data(), expected_gemm.data(), 64);
  ASSERT_GT(expected_gemm[0], 1 << 27);
  libraries::prepare_library_gemm("onednn", gemm, weights.data(), 64, bias.data(), 2)
      ->run(input.data(), 4608, got_gemm.data(), 64);
  EXPECT_EQ(got_gemm, expected_gemm);
}

TEST(LibraryRegistry, ListsWhatThisBuildCompiledIn) {
  const auto& compiled = libraries::compiled_libraries();
#if defined(QTUNE_HAVE_ONEDNN)
  EXPECT_EQ(compiled, std::vector<std::string>{"onednn"});
#else
  EXPECT_TRUE(compiled.empty());
  EXPECT_NE(libraries::library_unavailable("onednn"), "");
#endif
  EXPECT_NE(libraries::library_unavailable("no-such-library"), "");
}

#if defined(QTUNE_HAVE_ONEDNN)
// Off x86 oneDNN is compiled in (the peers of `qtune bench` time it) but never offered: its int8
// implementations there are outside the exactness rules, and the refusal names the architecture.
TEST(LibraryRegistry, OnednnIsNoTuningCandidateOffX86) {
  const CpuFeatures& cpu = cpu_features();
  if (cpu.arch == "x86_64") GTEST_SKIP() << "x86-64: oneDNN's offer depends on its int8 dot product instructions";
  const std::string why = libraries::library_unavailable("onednn");
  EXPECT_NE(why.find("on " + cpu.arch + " are not checked for exact int32 output"), std::string::npos) << why;
  const testing::GemmData d = testing::make_gemm_data(testing::GemmCase{});
  EXPECT_NE(library_gemm_unsupported("onednn", d.problem), "");
}
#endif

// A hidden library behaves as one this build lacks: nothing is offered or prepared with it.
TEST(LibraryRegistry, HiddenLibraryIsNeitherOfferedNorPrepared) {
  const testing::GemmData d = testing::make_gemm_data(testing::GemmCase{});
  libraries::set_library_hidden("onednn", true);
  EXPECT_NE(libraries::library_unavailable("onednn"), "");
  EXPECT_NE(library_gemm_unsupported("onednn", d.problem), "");
  EXPECT_THROW(libraries::prepare_library_gemm("onednn", d.problem, d.b.data(), d.ldb, d.bias.data(), 1),
               std::invalid_argument);
  libraries::set_library_hidden("onednn", false);
#if defined(QTUNE_HAVE_ONEDNN)
  if (libraries::library_unavailable("onednn").empty()) {
    EXPECT_EQ(library_gemm_unsupported("onednn", d.problem), "");
  }
#endif
}

}  // namespace
}  // namespace qtune
