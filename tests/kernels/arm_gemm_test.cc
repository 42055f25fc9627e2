// Every Arm GEMM microkernel (neon, dotprod, i8mm) through GemmOp against gemm_reference(), bit
// for bit: u8/s8 activations with extreme values and zero points, per-tensor and per-channel weight
// zero points, bias, int32 and requantized u8/s8 outputs in every rounding mode (fused and
// separate), packed and in-place A, K blocking, ragged tiles, two threads. The aarch64 build runs
// this once per emulated CPU model: a family the model lacks must be refused by
// gemm_check_config() and is skipped with its name, never executed.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace {

using qtune::DType;
using qtune::GemmConfig;
using qtune::GemmProblem;
using qtune::Isa;
using qtune::RoundingMode;

constexpr Isa kArmIsas[] = {Isa::neon, Isa::dotprod, Isa::i8mm};

std::vector<qtune::GemmMicrokernelInfo> arm_microkernels(Isa isa) {
  std::vector<qtune::GemmMicrokernelInfo> out;
  for (const auto& info : qtune::gemm_microkernels()) {
    if (info.isa == isa) out.push_back(info);
  }
  return out;
}

struct Data {
  std::vector<std::uint8_t> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> bias;
};

// Random data with a good share of the extreme values (0, 255 / -128, 127) that overflow narrow
// intermediate sums in non-exact kernels.
Data make_data(const GemmProblem& p, std::size_t lda, std::size_t ldb, std::mt19937& rng) {
  Data d;
  d.a.resize(static_cast<std::size_t>(p.m) * lda);
  d.b.resize(static_cast<std::size_t>(p.k) * ldb);
  d.bias.resize(static_cast<std::size_t>(p.n));
  std::uniform_int_distribution<int> byte(0, 255), pick(0, 3);
  for (auto& v : d.a) v = static_cast<std::uint8_t>(pick(rng) == 0 ? (byte(rng) & 1 ? 0x80 : 0x7F) : byte(rng));
  for (auto& v : d.b) v = static_cast<std::int8_t>(pick(rng) == 0 ? (byte(rng) & 1 ? -128 : 127) : byte(rng) - 128);
  std::uniform_int_distribution<std::int32_t> bias(-100000, 100000);
  for (auto& v : d.bias) v = bias(rng);
  return d;
}

GemmProblem make_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType a_type, DType out_type,
                         RoundingMode mode, bool per_channel, std::mt19937& rng) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_type = a_type;
  p.a_zero_point = a_type == DType::u8 ? 131 : -9;
  std::uniform_int_distribution<int> zb(-128, 127);
  if (per_channel) {
    p.b_zero_points.resize(static_cast<std::size_t>(n));
    for (auto& z : p.b_zero_points) z = zb(rng);
  } else {
    p.b_zero_points = {0};
  }
  p.has_bias = true;
  p.out_type = out_type;
  if (out_type != DType::s32) {
    // Scales around 1 / (K * 64) keep the outputs spread over the whole 8-bit range.
    std::uniform_real_distribution<double> jitter(0.5, 2.0);
    std::vector<double> scales(per_channel ? static_cast<std::size_t>(n) : 1);
    for (auto& s : scales) s = jitter(rng) / (static_cast<double>(k) * 64.0);
    const bool u8 = out_type == DType::u8;
    p.requant = qtune::RequantParams::make(mode, scales, u8 ? 120 : -3, u8 ? 0 : -128, u8 ? 255 : 127);
  }
  return p;
}

std::string describe(const GemmProblem& p, const GemmConfig& c) {
  return std::string(qtune::to_string(c.isa)) + " " + std::to_string(c.mr) + "x" + std::to_string(c.nr) + " m" +
         std::to_string(p.m) + " n" + std::to_string(p.n) + " k" + std::to_string(p.k) + " a " +
         std::string(qtune::to_string(p.a_type)) + " out " + std::string(qtune::to_string(p.out_type)) +
         (p.out_type != DType::s32 ? " mode " + std::string(qtune::to_string(p.requant.mode)) : "") +
         (p.b_zero_points.size() > 1 ? " per-channel" : "") + " kc " + std::to_string(c.kc) + " pack_a " +
         std::to_string(c.pack_a) + " fuse " + std::to_string(c.fuse_requant) + " threads " + std::to_string(c.threads);
}

// Runs one configuration and compares every output element (and that padding is untouched).
void expect_bit_exact(const GemmProblem& p, const GemmConfig& config, std::mt19937& rng) {
  const std::string what = describe(p, config);
  ASSERT_EQ(qtune::gemm_check_config(p, config), "") << what;
  const std::size_t lda = static_cast<std::size_t>(p.k) + 3, ldb = static_cast<std::size_t>(p.n) + 1;
  const std::size_t ldc = static_cast<std::size_t>(p.n) + 2;
  const Data d = make_data(p, lda, ldb, rng);
  const std::size_t elem = p.out_type == DType::s32 ? 4 : 1;
  const std::size_t c_bytes = static_cast<std::size_t>(p.m) * ldc * elem;
  std::vector<std::uint8_t> want(c_bytes, 0xCD), got(c_bytes, 0xCD);
  qtune::gemm_reference(p, d.a.data(), lda, d.b.data(), ldb, d.bias.data(), want.data(), ldc);
  const auto op = qtune::GemmOp::prepare(p, config, d.b.data(), ldb, d.bias.data());
  op.run(d.a.data(), lda, got.data(), ldc);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < c_bytes; ++i) {
    if (want[i] != got[i] && ++mismatches <= 3) {
      const std::size_t e = i / elem;
      ADD_FAILURE() << what << ": byte " << i % elem << " of C[" << e / ldc << "][" << e % ldc << "] is "
                    << int{got[i]} << ", reference " << int{want[i]};
    }
  }
  EXPECT_EQ(mismatches, 0u) << what;
}

class ArmGemm : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (arm_microkernels(GetParam()).empty()) {
      GTEST_SKIP() << "no " << qtune::to_string(GetParam()) << " microkernels in this build (not aarch64)";
    }
    if (!qtune::cpu_features().usable(GetParam())) {
      GTEST_SKIP() << "isa " << qtune::to_string(GetParam()) << " is not usable on this CPU";
    }
  }
};

TEST_P(ArmGemm, EveryTileOnRaggedShapesForEveryOutput) {
  std::mt19937 rng(7);
  for (const auto& uk : arm_microkernels(GetParam())) {
    // Full tiles, a ragged edge in every dimension, K not a multiple of kr, and several panels.
    const std::int64_t shapes[][3] = {{uk.mr, uk.nr, uk.kr}, {2 * uk.mr + 1, 2 * uk.nr + 3, 37}, {1, 1, 1},
                                      {uk.mr - 1, uk.nr + 1, 2 * uk.kr + 1}};
    for (const auto& s : shapes) {
      for (DType a_type : {DType::u8, DType::s8}) {
        for (DType out_type : {DType::s32, DType::u8, DType::s8}) {
          for (bool per_channel : {false, true}) {
            const GemmProblem p = make_problem(s[0], s[1], s[2], a_type, out_type, RoundingMode::tflite, per_channel, rng);
            GemmConfig c;
            c.isa = uk.isa;
            c.mr = uk.mr;
            c.nr = uk.nr;
            for (bool pack_a : {true, false}) {
              c.pack_a = pack_a;
              expect_bit_exact(p, c, rng);
            }
          }
        }
      }
    }
  }
}

TEST_P(ArmGemm, FusedAndSeparateRequantizationInEveryMode) {
  std::mt19937 rng(11);
  for (const auto& uk : arm_microkernels(GetParam())) {
    for (RoundingMode mode : qtune::kAllRoundingModes) {
      for (bool per_channel : {false, true}) {
        const GemmProblem p = make_problem(2 * uk.mr + 3, 3 * uk.nr - 1, 70, DType::u8, DType::s8, mode, per_channel, rng);
        GemmConfig c;
        c.isa = uk.isa;
        c.mr = uk.mr;
        c.nr = uk.nr;
        for (bool fuse : {true, false}) {
          c.fuse_requant = fuse;
          expect_bit_exact(p, c, rng);
        }
      }
    }
  }
}

TEST_P(ArmGemm, KBlockingThreadsAndInPlaceA) {
  std::mt19937 rng(13);
  for (const auto& uk : arm_microkernels(GetParam())) {
    for (DType a_type : {DType::u8, DType::s8}) {
      const GemmProblem p = make_problem(3 * uk.mr + 2, 2 * uk.nr + 5, 203, a_type, DType::u8, RoundingMode::upward,
                                         /*per_channel=*/true, rng);
      GemmConfig c;
      c.isa = uk.isa;
      c.mr = uk.mr;
      c.nr = uk.nr;
      c.kc = 8 * uk.kr;  // several K blocks: partial sums stored and reloaded (the i8mm layout round trip)
      c.mc = uk.mr;
      c.nc = uk.nr;
      for (int threads : {1, 2}) {
        for (bool pack_a : {true, false}) {
          c.threads = threads;
          c.pack_a = pack_a;
          expect_bit_exact(p, c, rng);
        }
      }
      GemmProblem s32 = p;
      s32.out_type = DType::s32;
      expect_bit_exact(s32, c, rng);
    }
  }
}

TEST_P(ArmGemm, RequiredTilesAreRegistered) {
  std::vector<std::string> tiles;
  for (const auto& uk : arm_microkernels(GetParam())) tiles.push_back(std::to_string(uk.mr) + "x" + std::to_string(uk.nr));
  for (const char* required : {"4x4", "8x8", "8x12"}) {
    EXPECT_NE(std::find(tiles.begin(), tiles.end(), required), tiles.end())
        << qtune::to_string(GetParam()) << " has no " << required << " tile";
  }
  if (GetParam() == Isa::dotprod) {
    EXPECT_NE(std::find(tiles.begin(), tiles.end(), "4x16"), tiles.end()) << "dotprod has no 4x16 tile";
  }
  if (GetParam() == Isa::neon) {
    EXPECT_NE(std::find(tiles.begin(), tiles.end(), "2x8"), tiles.end()) << "neon has no c8 tile";
  }
}

INSTANTIATE_TEST_SUITE_P(Families, ArmGemm, testing::ValuesIn(kArmIsas),
                         [](const testing::TestParamInfo<Isa>& info) { return std::string(qtune::to_string(info.param)); });

// A family the CPU cannot run is refused by name and never chosen by default.
TEST(ArmGemmDispatch, UnusableFamiliesAreRefusedAndDefaultIsBestUsable) {
  if (qtune::cpu_features().arch != "aarch64") GTEST_SKIP() << "Arm dispatch is checked on aarch64 only";
  std::mt19937 rng(3);
  const GemmProblem p = make_problem(16, 24, 64, DType::u8, DType::u8, RoundingMode::tflite, false, rng);
  for (Isa isa : kArmIsas) {
    GemmConfig c;
    c.isa = isa;
    c.mr = 8;
    c.nr = 8;
    const std::string why = qtune::gemm_check_config(p, c);
    if (qtune::cpu_features().usable(isa)) {
      EXPECT_EQ(why, "");
    } else {
      EXPECT_EQ(why, "isa " + std::string(qtune::to_string(isa)) + " is not usable on this CPU");
    }
  }
  const Isa best = qtune::cpu_features().usable(Isa::i8mm)      ? Isa::i8mm
                   : qtune::cpu_features().usable(Isa::dotprod) ? Isa::dotprod
                                                                : Isa::neon;
  EXPECT_EQ(qtune::gemm_default_config(p).isa, best);
  // The default tiles (isa_table.cc): neon's c8 tile; dotprod's 4x16, or 8x12 where it pads less.
  const auto tile = [](int n) {
    std::mt19937 r(5);
    const GemmConfig c = qtune::gemm_default_config(make_problem(64, n, 64, DType::u8, DType::u8, RoundingMode::tflite, false, r));
    return std::to_string(c.mr) + "x" + std::to_string(c.nr);
  };
  if (best == Isa::neon) {
    EXPECT_EQ(tile(64), "2x8");
  }
  if (best == Isa::dotprod) {
    EXPECT_EQ(tile(64), "4x16");
    EXPECT_EQ(tile(24), "8x12");
  }
  if (best == Isa::i8mm) {
    EXPECT_EQ(tile(64), "8x12");
  }
}

}  // namespace
