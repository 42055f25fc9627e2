// The one tester every GEMM variant goes through (in the spirit of XNNPACK's
// GemmMicrokernelTester): builds a random problem of a given shape and quantization, runs the
// configured variant through GemmOp, and compares with gemm_reference bit for bit; C lives inside a
// canary-filled buffer (rows before and after, columns past n up to ldc) so that any write outside
// C is caught.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/src/gemm/gemm_ukernel.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace qtune::testing {

enum class ZeroPoints { zero, per_tensor, per_channel };

// How a case draws its requantization scales.
enum class ScaleDraw {
  // Scales that spread the outputs over the 8-bit range, all below 1/2, as trained layers' are.
  trained,
  // Scales from 1/4 to 16 over small operands, so that outputs still spread over the 8-bit range:
  // left shifts, scales of 1/2 to 1 and below 1/2 side by side in one plan (the general forms of
  // the Arm epilogues, arm/neon/requant_neon.h).
  around_one,
  // Scales of 2^-k and 1.5 * 2^-k (k = 2 .. 7), all below 1/2, over the same small operands: their
  // multipliers end in 29 or 30 zero bits, so accumulators land exactly halfway between two
  // outputs, where the modes part (tonearest keeps its general form on Arm: product_never_ties).
  tying,
};

struct GemmCase {
  std::int64_t m = 1, n = 1, k = 1;
  DType a_type = DType::u8;
  bool a_zero_point_nonzero = true;
  ZeroPoints b_zero_points = ZeroPoints::per_channel;
  bool has_bias = true;
  bool wide_bias = false;  // bias over the whole int32 range: exercises the wrapping accumulator
  DType out_type = DType::s32;
  RoundingMode mode = RoundingMode::tflite;
  bool per_channel_requant = true;
  bool narrow_clamp = false;  // qmin/qmax inside the type's range (a fused ReLU6-like clamp)
  bool relu = false;          // the zero point at qmin (a fused ReLU: no result below it survives)
  ScaleDraw scales = ScaleDraw::trained;
  std::size_t lda_pad = 0, ldc_pad = 0;
  std::uint64_t seed = 1;

  std::string describe() const {
    std::ostringstream s;
    s << m << "x" << n << "x" << k << " a=" << to_string(a_type) << " za" << (a_zero_point_nonzero ? "!=0" : "=0")
      << " zb=" << (b_zero_points == ZeroPoints::zero ? "0" : b_zero_points == ZeroPoints::per_tensor ? "tensor" : "channel")
      << " bias=" << (has_bias ? (wide_bias ? "wide" : "yes") : "no") << " out=" << to_string(out_type);
    if (out_type != DType::s32) {
      s << " round=" << to_string(mode) << (per_channel_requant ? " per-channel" : " per-tensor")
        << (narrow_clamp ? " narrow-clamp" : "") << (relu ? " relu" : "") << (scales == ScaleDraw::around_one ? " scales~1" : scales == ScaleDraw::tying ? " tying-scales" : "");
    }
    s << " lda+" << lda_pad << " ldc+" << ldc_pad << " seed=" << seed;
    return s.str();
  }
};

inline std::string describe(const GemmConfig& c) {
  std::ostringstream s;
  s << "isa=" << to_string(c.isa) << " tile=" << c.mr << "x" << c.nr << " kc=" << c.kc << " mc=" << c.mc
    << " nc=" << c.nc << " pack_a=" << c.pack_a << " fuse=" << c.fuse_requant << " threads=" << c.threads;
  return s.str();
}

struct GemmData {
  GemmProblem problem;
  std::vector<std::uint8_t> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> bias;
  std::size_t lda = 0, ldb = 0, ldc = 0;
};

inline GemmData make_gemm_data(const GemmCase& t) {
  std::mt19937_64 rng(t.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(t.m * 131 + t.n * 17 + t.k));
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng));
  };
  GemmData d;
  GemmProblem& p = d.problem;
  p.m = t.m;
  p.n = t.n;
  p.k = t.k;
  p.a_type = t.a_type;
  const bool a_signed = t.a_type == DType::s8;
  const bool small = t.scales != ScaleDraw::trained;
  p.a_zero_point = !t.a_zero_point_nonzero ? 0 : small ? uniform(1, 4) : (a_signed ? uniform(-128, 127) | 1 : uniform(1, 255));
  switch (t.b_zero_points) {
    case ZeroPoints::zero: p.b_zero_points = {0}; break;
    case ZeroPoints::per_tensor: p.b_zero_points = {small ? uniform(-3, 3) | 1 : uniform(-128, 127) | 1}; break;
    case ZeroPoints::per_channel:
      p.b_zero_points.resize(static_cast<std::size_t>(t.n));
      for (auto& z : p.b_zero_points) z = small ? uniform(-3, 3) : uniform(-128, 127);
      p.b_zero_points[0] = p.b_zero_points[0] == 0 ? 3 : p.b_zero_points[0];  // at least one != 0
      break;
  }
  p.has_bias = t.has_bias;
  p.out_type = t.out_type;
  if (t.out_type != DType::s32) {
    // Scales that spread the outputs over the 8-bit range: |acc| is about 74^2 * sqrt(K).
    const double typical = 74.0 * 74.0 * std::sqrt(static_cast<double>(t.k)) + 1;
    const std::size_t channels = t.per_channel_requant ? static_cast<std::size_t>(t.n) : 1;
    std::vector<double> scales(channels);
    for (auto& s : scales) {
      s = t.scales == ScaleDraw::tying ? std::ldexp(uniform(0, 1) ? 1.5 : 1.0, -uniform(2, 7))
                         : (small ? 1.0 : 60.0 / typical) * std::ldexp(1.0, uniform(-2, small ? 3 : 2)) *
                               (1 + uniform(0, 1000) / 1000.0);
    }
    const bool out_signed = t.out_type == DType::s8;
    std::int32_t qmin = out_signed ? -128 : 0, qmax = out_signed ? 127 : 255;
    if (t.narrow_clamp) {
      qmin += 20;
      qmax -= 30;
    }
    const std::int32_t drawn_zp = uniform(qmin, qmax);
    const std::int32_t zp = t.relu ? qmin : drawn_zp;
    p.requant = RequantParams::make(t.mode, scales, zp, qmin, qmax);
  }
  d.lda = static_cast<std::size_t>(t.k) + t.lda_pad;
  d.ldb = static_cast<std::size_t>(t.n);
  d.ldc = static_cast<std::size_t>(t.n) + t.ldc_pad;
  d.a.resize(static_cast<std::size_t>(t.m) * d.lda);
  for (auto& v : d.a) v = static_cast<std::uint8_t>(small ? uniform(0, 6) : uniform(0, 255));
  d.b.resize(static_cast<std::size_t>(t.k * t.n));
  for (auto& v : d.b) v = static_cast<std::int8_t>(small ? uniform(-6, 6) : uniform(-128, 127));
  if (t.has_bias) {
    d.bias.resize(static_cast<std::size_t>(t.n));
    for (auto& v : d.bias) v = t.wide_bias ? uniform(INT32_MIN, INT32_MAX) : small ? uniform(-50, 50) : uniform(-20000, 20000);
  }
  return d;
}

inline std::size_t out_elem_bytes(DType t) { return t == DType::s32 ? 4 : 1; }

// Prepares an operator with `prepare(data)` (a callable run(a, lda, c, ldc) for the data's B and
// bias), runs it `runs` times on the case and expects a bit-exact match with gemm_reference and
// intact canaries. Shared by the kernels' variants and the library layers.
template <typename Prepare>
void expect_prepared_gemm_matches_reference(const GemmCase& t, const std::string& what, Prepare&& prepare,
                                            int runs = 1) {
  SCOPED_TRACE(t.describe() + " | " + what);
  const GemmData d = make_gemm_data(t);
  const std::size_t elem = out_elem_bytes(t.out_type);
  const auto m = static_cast<std::size_t>(t.m), n = static_cast<std::size_t>(t.n);
  std::vector<std::uint8_t> expected(m * d.ldc * elem, 0);
  gemm_reference(d.problem, d.a.data(), d.lda, d.b.data(), d.ldb, t.has_bias ? d.bias.data() : nullptr,
                 expected.data(), d.ldc);

  constexpr std::uint8_t kCanary = 0xA5;
  const std::size_t guard = 64;  // bytes before and after C
  std::vector<std::uint8_t> buffer(guard + m * d.ldc * elem + guard, kCanary);
  std::uint8_t* c = buffer.data() + guard;

  const auto run = prepare(d);
  for (int r = 0; r < runs; ++r) run(d.a.data(), d.lda, c, d.ldc);

  std::size_t mismatches = 0;
  std::string first;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t at = (i * d.ldc + j) * elem;
      if (std::memcmp(c + at, expected.data() + at, elem) != 0) {
        if (mismatches++ == 0) {
          std::int32_t want = 0, got = 0;
          if (elem == 4) {
            std::memcpy(&want, expected.data() + at, 4);
            std::memcpy(&got, c + at, 4);
          } else if (t.out_type == DType::s8) {
            want = static_cast<std::int8_t>(expected[at]);
            got = static_cast<std::int8_t>(c[at]);
          } else {
            want = expected[at];
            got = c[at];
          }
          first = "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(got) +
                  ", reference " + std::to_string(want);
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "first mismatch: " << first;
  std::size_t canary_hits = 0;
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    const bool inside = i >= guard && i < guard + m * d.ldc * elem && ((i - guard) / elem) % d.ldc < n;
    if (!inside && buffer[i] != kCanary) ++canary_hits;
  }
  EXPECT_EQ(canary_hits, 0u) << "bytes written outside C";
}

// Runs `config` on the case; `runs` > 1 repeats run() on the same op (scratch reuse).
inline void expect_gemm_matches_reference(const GemmCase& t, const GemmConfig& config, int runs = 1) {
  expect_prepared_gemm_matches_reference(
      t, describe(config),
      [&](const GemmData& d) {
        auto op = std::make_shared<const GemmOp>(
            GemmOp::prepare(d.problem, config, d.b.data(), d.ldb, t.has_bias ? d.bias.data() : nullptr));
        return [op](const void* a, std::size_t lda, void* c, std::size_t ldc) { op->run(a, lda, c, ldc); };
      },
      runs);
}

// Every microkernel compiled into this build, optionally of one ISA.
inline std::vector<GemmMicrokernelInfo> compiled_microkernels() { return gemm_microkernels(); }

inline bool microkernel_reads_a_in_place(const GemmMicrokernelInfo& uk) {
  return detail::find_gemm_ukernel(uk.isa, uk.mr, uk.nr)->a_in_place;
}

inline GemmConfig config_for(const GemmMicrokernelInfo& uk, bool pack_a, bool fuse) {
  GemmConfig c;
  c.isa = uk.isa;
  c.mr = uk.mr;
  c.nr = uk.nr;
  c.pack_a = pack_a;
  c.fuse_requant = fuse;
  return c;
}

inline std::string tile_id(const GemmMicrokernelInfo& uk) {
  return std::string(to_string(uk.isa)) + "_" + std::to_string(uk.mr) + "x" + std::to_string(uk.nr);
}

// A sweep's parameters (each with a `uk`) must cover every instruction set compiled in: a family
// left out of a sweep would never be tested.
template <class Param>
void expect_sweep_covers_every_isa(const std::vector<Param>& params) {
  std::set<Isa> swept;
  for (const Param& p : params) swept.insert(p.uk.isa);
  const std::vector<Isa> compiled = compiled_isas();
  EXPECT_EQ(swept, std::set<Isa>(compiled.begin(), compiled.end()));
}

}  // namespace qtune::testing

// Skips the current test when the CPU cannot execute `isa` (never runs an illegal instruction).
#define QTUNE_SKIP_UNLESS_USABLE(isa)                                                          \
  do {                                                                                          \
    if (!::qtune::cpu_features().usable(isa)) {                                                 \
      GTEST_SKIP() << "isa " << ::qtune::to_string(isa) << " is not usable on this CPU";        \
    }                                                                                           \
  } while (0)
