// Shared by the conv2d tests: deterministic problems, data, and the bit-exact comparison of one
// configuration against conv2d_reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"

namespace qtune::testing {

// The quantization kind of a test problem.
struct ConvQuant {
  DType a_type = DType::u8;
  DType out_type = DType::s8;
  bool per_channel = true;
  bool b_zero_point_nonzero = false;
  bool has_bias = true;
  RoundingMode rounding = RoundingMode::tflite;
  bool relu = false;  // a fused ReLU: the output zero point at the bottom of the range
};

// Fills in the zero points and scales of `p` (shape already set) for `q`, deterministically.
inline void quantize_problem(Conv2dProblem& p, const ConvQuant& q, std::uint32_t seed) {
  std::mt19937 rng(seed);
  p.a_type = q.a_type;
  p.a_zero_point = q.a_type == DType::u8 ? static_cast<std::int32_t>(rng() % 200 + 20)
                                         : static_cast<std::int32_t>(rng() % 160) - 80;
  const std::size_t channels = q.per_channel ? static_cast<std::size_t>(p.out_c) : 1;
  p.b_zero_points.assign(channels, 0);
  if (q.b_zero_point_nonzero) {
    for (auto& zb : p.b_zero_points) zb = static_cast<std::int32_t>(rng() % 41) - 20;
  }
  p.has_bias = q.has_bias;
  p.out_type = q.out_type;
  if (q.out_type != DType::s32) {
    // Scales that spread the accumulators over the output range (some saturate, most do not).
    const double k = static_cast<double>(p.kernel_h * p.kernel_w * (p.in_c / p.groups));
    std::uniform_real_distribution<double> spread(0.5, 2.0);
    std::vector<double> scales(channels);
    for (double& s : scales) s = spread(rng) * 0.02 / std::sqrt(k);
    const std::int32_t lo = q.out_type == DType::u8 ? 0 : -128, hi = q.out_type == DType::u8 ? 255 : 127;
    const std::int32_t zp = q.relu ? lo : q.out_type == DType::u8 ? 120 : -7;
    p.requant = RequantParams::make(q.rounding, scales, zp, lo, hi);
  }
}

struct ConvData {
  std::vector<std::uint8_t> input;   // u8 or s8 bytes
  std::vector<std::int8_t> weights;  // HWIO
  std::vector<std::int32_t> bias;
};

inline ConvData make_data(const Conv2dProblem& p, std::uint32_t seed) {
  std::mt19937 rng(seed);
  ConvData d;
  d.input.resize(static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c));
  for (auto& v : d.input) v = static_cast<std::uint8_t>(rng());
  d.weights.resize(static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c));
  for (auto& v : d.weights) v = static_cast<std::int8_t>(rng());
  if (p.has_bias) {
    d.bias.resize(static_cast<std::size_t>(p.out_c));
    for (auto& v : d.bias) v = static_cast<std::int32_t>(rng() % 20001) - 10000;
  }
  return d;
}

inline std::size_t output_bytes(const Conv2dProblem& p) {
  return static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1);
}

// Written with a stream: GCC 12's -Wrestrict misfires on `"literal" + std::string&&` (PR 105329).
inline std::string describe(const Conv2dProblem& p) {
  std::ostringstream s;
  s << "in " << p.batch << "x" << p.in_h << "x" << p.in_w << "x" << p.in_c << " k " << p.kernel_h << "x" << p.kernel_w
    << " s " << p.stride_h << "," << p.stride_w << " d " << p.dilation_h << "," << p.dilation_w << " pad " << p.pad_top
    << "," << p.pad_bottom << "," << p.pad_left << "," << p.pad_right << " g " << p.groups << " -> " << p.out_c << " a "
    << to_string(p.a_type) << " out " << to_string(p.out_type) << " round " << to_string(p.requant.mode)
    << (p.requant.per_channel() ? " per-channel" : " per-tensor");
  return s.str();
}

inline std::string describe(const Conv2dConfig& c) {
  std::ostringstream s;
  s << to_string(c.algo) << " " << to_string(c.gemm.isa);
  if (c.algo == ConvAlgo::depthwise) {
    s << " tile " << c.dw_channel_tile << "x" << c.dw_width_tile;
  } else {
    s << " " << c.gemm.mr << "x" << c.gemm.nr << " kc " << c.gemm.kc << " pack_a " << c.gemm.pack_a;
  }
  s << (c.gemm.fuse_requant ? " fused" : " separate") << " threads " << c.gemm.threads;
  return s.str();
}

// Prepares an operator with `prepare(data)` (a callable run(input, output) for the data's weights
// and bias), runs it on `p` and compares with the reference bit for bit (one failure message,
// naming `what`, with the first differing element). Shared by the kernels and the library layers.
template <typename Prepare>
void expect_prepared_matches_reference(const Conv2dProblem& p, const std::string& what, std::uint32_t seed,
                                       Prepare&& prepare, const std::vector<std::uint8_t>* reference_out = nullptr) {
  const ConvData d = make_data(p, seed);
  const std::int32_t* bias = p.has_bias ? d.bias.data() : nullptr;
  std::vector<std::uint8_t> expected;
  if (reference_out != nullptr) {
    expected = *reference_out;
  } else {
    expected.assign(output_bytes(p), 0);
    conv2d_reference(p, d.input.data(), d.weights.data(), bias, expected.data());
  }
  const auto run = prepare(d);
  std::vector<std::uint8_t> got(output_bytes(p), 0xA5);
  run(d.input.data(), got.data());
  const std::size_t elem = p.out_type == DType::s32 ? 4 : 1;
  for (std::size_t i = 0; i < got.size(); i += elem) {
    if (std::memcmp(got.data() + i, expected.data() + i, elem) != 0) {
      ADD_FAILURE() << what << " on " << describe(p) << ": element " << i / elem << " (channel "
                    << (i / elem) % static_cast<std::size_t>(p.out_c) << ") differs from the reference";
      return;
    }
  }
}

// Runs `config` on `p` and compares with the reference bit for bit.
inline void expect_matches_reference(const Conv2dProblem& p, const Conv2dConfig& config, std::uint32_t seed,
                                     const std::vector<std::uint8_t>* reference_out = nullptr) {
  expect_prepared_matches_reference(
      p, describe(config), seed,
      [&](const ConvData& d) {
        auto op = std::make_shared<const Conv2dOp>(
            Conv2dOp::prepare(p, config, d.weights.data(), p.has_bias ? d.bias.data() : nullptr));
        return [op](const void* input, void* output) { op->run(input, output); };
      },
      reference_out);
}

}  // namespace qtune::testing
