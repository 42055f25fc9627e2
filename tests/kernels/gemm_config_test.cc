// GemmProblem validation, gemm_check_config's messages, gemm_default_config, the microkernel list,
// and the errors GemmOp::prepare / run report for bad input.
#include <gtest/gtest.h>

#include <set>

#include "kernels/gemm_tester.h"

namespace qtune::testing {
namespace {

// Expects `text` to contain `part`, printing both otherwise.
#define EXPECT_CONTAINS(text, part)                                                     \
  do {                                                                                  \
    const std::string qtune_text = (text), qtune_part = (part);                         \
    EXPECT_NE(qtune_text.find(qtune_part), std::string::npos)                           \
        << "\"" << qtune_text << "\" does not contain \"" << qtune_part << "\"";       \
  } while (0)

GemmProblem valid_problem() {
  GemmProblem p;
  p.m = 10;
  p.n = 12;
  p.k = 20;
  p.out_type = DType::s8;
  p.requant = RequantParams::make(RoundingMode::tflite, {0.01}, 0, -128, 127);
  return p;
}

std::string validate_error(const GemmProblem& p) {
  try {
    p.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(GemmProblem, ValidProblemPasses) { EXPECT_EQ(validate_error(valid_problem()), ""); }

TEST(GemmProblem, InvalidFieldsAreNamed) {
  GemmProblem p = valid_problem();
  p.m = 0;
  EXPECT_CONTAINS(validate_error(p), "m must be");
  p = valid_problem();
  p.k = -3;
  EXPECT_CONTAINS(validate_error(p), "k must be");
  p = valid_problem();
  p.a_type = DType::s32;
  EXPECT_CONTAINS(validate_error(p), "a_type");
  p = valid_problem();
  p.a_zero_point = 256;
  EXPECT_CONTAINS(validate_error(p), "a_zero_point 256");
  p = valid_problem();
  p.a_type = DType::s8;
  p.a_zero_point = 128;
  EXPECT_CONTAINS(validate_error(p), "a_zero_point 128");
  p = valid_problem();
  p.b_zero_points = {1, 2, 3};
  EXPECT_CONTAINS(validate_error(p), "b_zero_points must have 1 or n = 12");
  p = valid_problem();
  p.b_zero_points = {200};
  EXPECT_CONTAINS(validate_error(p), "b_zero_points[0] = 200");
  p = valid_problem();
  p.requant = RequantParams::make(RoundingMode::tflite, {0.1, 0.2}, 0, -128, 127);
  EXPECT_CONTAINS(validate_error(p), "requant must have 1 or n = 12 scales");
  p = valid_problem();
  p.out_type = DType::u8;  // s8 clamp bounds for a u8 output
  EXPECT_CONTAINS(validate_error(p), "requantization qmin -128 is outside the range of u8");
  p = valid_problem();
  p.out_type = DType::s32;
  p.requant = {};
  EXPECT_EQ(validate_error(p), "") << "requant is unused for s32 outputs";
}

TEST(GemmProblem, BZeroPointNonzero) {
  GemmProblem p = valid_problem();
  EXPECT_FALSE(p.b_zero_point_nonzero());
  p.b_zero_points.assign(12, 0);
  EXPECT_FALSE(p.b_zero_point_nonzero());
  p.b_zero_points[11] = -1;
  EXPECT_TRUE(p.b_zero_point_nonzero());
}

TEST(GemmCheckConfig, Messages) {
  const GemmProblem p = valid_problem();
  GemmConfig c;
  c.isa = Isa::scalar;
  c.mr = 8;
  c.nr = 5;
  EXPECT_CONTAINS(gemm_check_config(p, c), "no 8x5 tile for scalar; tiles: ");
  c.mr = c.nr = 4;
  EXPECT_EQ(gemm_check_config(p, c), "");
  c.kc = 100 + 2;
  EXPECT_EQ(gemm_check_config(p, c).rfind("kc=102 is not a multiple of the k group 4", 0), 0u);
  c.kc = 0;
  c.mc = -4;
  EXPECT_CONTAINS(gemm_check_config(p, c), "mc=-4 is negative");
  c.mc = 6;  // blocks round down to whole tiles
  EXPECT_EQ(gemm_check_config(p, c), "");
  c.mc = 0;
  c.nc = -1;
  EXPECT_CONTAINS(gemm_check_config(p, c), "nc=-1 is negative");
  c.nc = 2;
  EXPECT_EQ(gemm_check_config(p, c), "");
  c.nc = 0;
  c.threads = 0;
  EXPECT_CONTAINS(gemm_check_config(p, c), "threads=0");
  c.threads = 1;
  GemmProblem bad = p;
  bad.n = 0;
  EXPECT_CONTAINS(gemm_check_config(bad, c), "n must be");
}

TEST(GemmCheckConfig, IsaAndPackAMessages) {
  const GemmProblem p = valid_problem();
#if defined(__aarch64__)
  const Isa compiled_vector_isas[] = {Isa::neon, Isa::dotprod, Isa::i8mm};
#else
  const Isa compiled_vector_isas[] = {Isa::avx2, Isa::avx512bw, Isa::avxvnni, Isa::avx512vnni};
#endif
  for (Isa isa : compiled_vector_isas) {
    GemmConfig c;
    c.isa = isa;
    c.mr = 8;
    c.nr = 8;
    const std::string why = gemm_check_config(p, c);
    if (!cpu_features().usable(isa)) {
      EXPECT_EQ(why, "isa " + std::string(to_string(isa)) + " is not usable on this CPU");
    } else {
      EXPECT_EQ(why, "");
    }
  }
  if (!cpu_features().usable(Isa::avx2)) GTEST_SKIP() << "isa avx2 is not usable on this CPU";
  GemmConfig c;
  c.isa = Isa::avx2;
  c.mr = 8;
  c.nr = 12;
  c.pack_a = false;
  EXPECT_EQ(gemm_check_config(p, c), "pack_a=0 is not supported by avx2: A must be widened to int16");
  c.pack_a = true;
  c.kc = 101;
  EXPECT_CONTAINS(gemm_check_config(p, c), "kc=101 is not a multiple of the k group 2");
  c.kc = 0;
  c.nr = 5;
  EXPECT_CONTAINS(gemm_check_config(p, c), "no 8x5 tile for avx2; tiles: 1x8 4x4 4x8");
}

TEST(GemmDefaultConfig, IsValidAndVectorizedWhenPossible) {
  for (auto [m, n, k] : {std::tuple{1, 1, 1}, {5625, 192, 720}, {3136, 144, 24}, {784, 128, 1152}, {7, 1000, 4096}}) {
    GemmProblem p = valid_problem();
    p.m = m;
    p.n = n;
    p.k = k;
    const GemmConfig c = gemm_default_config(p);
    EXPECT_EQ(gemm_check_config(p, c), "") << m << "x" << n << "x" << k;
    if (cpu_features().usable(Isa::avx2)) {
      EXPECT_NE(c.isa, Isa::scalar);
    }
  }
}

TEST(GemmMicrokernels, NamesAndTilesAreConsistent) {
  std::set<std::string> names;
  for (const auto& uk : gemm_microkernels()) {
    EXPECT_TRUE(names.insert(uk.name).second) << "duplicate " << uk.name;
    const std::string tile = std::to_string(uk.mr) + "x" + std::to_string(uk.nr) + "c" + std::to_string(uk.kr);
    EXPECT_CONTAINS(uk.name, tile);
    EXPECT_CONTAINS(uk.name, std::string(to_string(uk.isa)));
  }
  // The tiles every family must offer: the seeds' 4x4, 8x8 and 8x12; AMX, whose accumulators are
  // 16 x 16 tiles, its four tile blocks.
  const std::vector<std::pair<int, int>> register_tiles = {{4, 4}, {8, 8}, {8, 12}};
  const std::vector<std::pair<int, int>> amx_blocks = {{16, 16}, {16, 32}, {32, 16}, {32, 32}};
  for (Isa isa : compiled_isas()) {
    bool compiled = false;
    for (const auto& uk : gemm_microkernels()) compiled |= uk.isa == isa;
    if (!compiled) continue;
    for (auto [mr, nr] : isa == Isa::amx ? amx_blocks : register_tiles) {
      bool found = false;
      for (const auto& uk : gemm_microkernels()) found |= uk.isa == isa && uk.mr == mr && uk.nr == nr;
      EXPECT_TRUE(found) << to_string(isa) << " lacks " << mr << "x" << nr;
    }
  }
}

TEST(GemmOp, PrepareAndRunRejectBadInput) {
  const GemmProblem p = valid_problem();
  std::vector<std::int8_t> b(static_cast<std::size_t>(p.k * p.n));
  std::vector<std::int32_t> bias(static_cast<std::size_t>(p.n));
  GemmConfig c;  // scalar 4x4
  EXPECT_THROW(GemmOp::prepare(p, c, b.data(), static_cast<std::size_t>(p.n) - 1, bias.data()), std::invalid_argument);
  EXPECT_THROW(GemmOp::prepare(p, c, b.data(), static_cast<std::size_t>(p.n), nullptr), std::invalid_argument);
  GemmConfig bad = c;
  bad.mr = 3;
  try {
    GemmOp::prepare(p, bad, b.data(), static_cast<std::size_t>(p.n), bias.data());
    ADD_FAILURE() << "prepare accepted a 3x4 scalar tile";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "no 3x4 tile for scalar");
  }
  const GemmOp op = GemmOp::prepare(p, c, b.data(), static_cast<std::size_t>(p.n), bias.data());
  EXPECT_EQ(op.problem().m, p.m);
  EXPECT_EQ(op.config().mr, 4);
  EXPECT_GE(op.packed_weight_bytes(), static_cast<std::size_t>(p.k * p.n));
  std::vector<std::uint8_t> a(static_cast<std::size_t>(p.m * p.k)), out(static_cast<std::size_t>(p.m * p.n));
  EXPECT_THROW(op.run(a.data(), static_cast<std::size_t>(p.k) - 1, out.data(), static_cast<std::size_t>(p.n)),
               std::invalid_argument);
  EXPECT_THROW(op.run(a.data(), static_cast<std::size_t>(p.k), out.data(), static_cast<std::size_t>(p.n) - 1),
               std::invalid_argument);
  EXPECT_THROW(op.run(nullptr, static_cast<std::size_t>(p.k), out.data(), static_cast<std::size_t>(p.n)),
               std::invalid_argument);
}

}  // namespace
}  // namespace qtune::testing
