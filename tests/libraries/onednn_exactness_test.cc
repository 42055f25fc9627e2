// libraries/onednn_exactness.h: oneDNN's int32 dot products compared with the exact ones. With an
// int8 dot-product instruction they are equal; restricted to AVX-512 without VNNI (as on a
// Skylake-SP), vpmaddubsw's saturating pair sums make the sums of large activations and weights
// differ, and the check counts them.
#include <gtest/gtest.h>

#if defined(QTUNE_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/onednn_exactness.h"

namespace qtune {
namespace {

Conv2dProblem conv_3x3(std::int64_t c, std::int64_t oc) {
  Conv2dProblem p;
  p.in_h = p.in_w = 10;
  p.in_c = c;
  p.out_c = oc;
  p.kernel_h = p.kernel_w = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  p.out_type = DType::s32;
  return p;
}

bool onednn_restricted() {
  const char* isa = std::getenv("DNNL_MAX_CPU_ISA");
  return isa != nullptr && *isa != '\0' && std::string(isa) != "ALL";
}

TEST(OnednnExactness, EqualWithAnInt8DotProductInstruction) {
  const CpuFeatures& cpu = cpu_features();
  if (!(cpu.avx512vnni || cpu.avxvnni) || onednn_restricted())
    GTEST_SKIP() << "no VNNI here for oneDNN (or DNNL_MAX_CPU_ISA restricts it)";
  const Conv2dProblem p = conv_3x3(64, 32);
  std::mt19937 rng(7);
  std::vector<std::uint8_t> input(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c));
  std::vector<std::int8_t> weights(static_cast<std::size_t>(9 * p.in_c * p.out_c));
  for (auto& x : input) x = static_cast<std::uint8_t>(rng());
  for (auto& w : weights) w = static_cast<std::int8_t>(rng());
  const auto conv = libraries::onednn_conv_exactness(p, weights.data(), input.data(), 1);
  EXPECT_EQ(conv.elements, p.out_h() * p.out_w() * p.out_c);
  EXPECT_EQ(conv.mismatched, 0) << conv.implementation;

  GemmProblem g;
  g.m = 37;
  g.n = 45;
  g.k = 300;
  std::vector<std::uint8_t> a(static_cast<std::size_t>(g.m * g.k));
  std::vector<std::int8_t> b(static_cast<std::size_t>(g.k * g.n));
  for (auto& x : a) x = static_cast<std::uint8_t>(rng());
  for (auto& w : b) w = static_cast<std::int8_t>(rng());
  const auto matmul = libraries::onednn_matmul_exactness(g, b.data(), a.data(), 2);
  EXPECT_EQ(matmul.elements, g.m * g.n);
  EXPECT_EQ(matmul.mismatched, 0) << matmul.implementation;
}

// Activations of 255 and weights of 127: every pair of products sums to 64770, beyond int16. Run
// by ctest as libraries_tests.onednn-without-vnni, in a process of its own with oneDNN restricted
// by DNNL_MAX_CPU_ISA=AVX512_CORE (the restriction holds for the whole process, so the other
// tests of this binary must not share it).
TEST(OnednnExactness, CountsTheSaturatedSumsWithoutVnni) {
  const char* isa = std::getenv("DNNL_MAX_CPU_ISA");
  if (isa == nullptr || std::string(isa) != "AVX512_CORE")
    GTEST_SKIP() << "runs with DNNL_MAX_CPU_ISA=AVX512_CORE (ctest: libraries_tests.onednn-without-vnni)";
  if (dnnl::get_effective_cpu_isa() != dnnl::cpu_isa::avx512_core) GTEST_SKIP() << "oneDNN has no AVX-512 here";
  const Conv2dProblem p = conv_3x3(32, 16);
  const std::vector<std::uint8_t> input(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c), 255);
  const std::vector<std::int8_t> weights(static_cast<std::size_t>(9 * p.in_c * p.out_c), 127);
  const auto conv = libraries::onednn_conv_exactness(p, weights.data(), input.data(), 1);
  EXPECT_EQ(conv.elements, p.out_h() * p.out_w() * p.out_c);
  EXPECT_GT(conv.mismatched, 0) << conv.implementation;

  GemmProblem g;
  g.m = 16;
  g.n = 32;
  g.k = 64;
  const std::vector<std::uint8_t> a(static_cast<std::size_t>(g.m * g.k), 255);
  const std::vector<std::int8_t> b(static_cast<std::size_t>(g.k * g.n), 127);
  const auto matmul = libraries::onednn_matmul_exactness(g, b.data(), a.data(), 1);
  EXPECT_EQ(matmul.mismatched, g.m * g.n) << matmul.implementation;
}

}  // namespace
}  // namespace qtune
#endif
