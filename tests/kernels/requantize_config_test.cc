// The standalone requantization kernel's variant list, config checks and argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/requantize.h"

namespace qtune {
namespace {

bool has_variant(Isa isa, int unroll) {
  const auto v = requantize_variants();
  return std::find(v.begin(), v.end(), RequantizeConfig{isa, unroll}) != v.end();
}

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(RequantizeConfig, VariantsListScalarAndCompiledVectorIsas) {
  EXPECT_TRUE(has_variant(Isa::scalar, 1));
  EXPECT_FALSE(has_variant(Isa::scalar, 2));
#if defined(__x86_64__)
  for (int unroll : {1, 2, 4}) {
    EXPECT_TRUE(has_variant(Isa::avx2, unroll));
    EXPECT_TRUE(has_variant(Isa::avx512vnni, unroll));
  }
#endif
  for (const RequantizeConfig& c : requantize_variants()) {
    EXPECT_EQ(requantize_check_config(c).empty(), cpu_features().usable(c.isa)) << to_string(c.isa);
  }
}

TEST(RequantizeConfig, CheckNamesTheProblem) {
  EXPECT_EQ(requantize_check_config({Isa::scalar, 1}), "");
  EXPECT_NE(requantize_check_config({Isa::scalar, 4}).find("unroll"), std::string::npos);
  EXPECT_NE(requantize_check_config({Isa::amx, 1}).find("amx"), std::string::npos);
#if !defined(__aarch64__)  // aarch64 builds have the neon variant
  EXPECT_NE(requantize_check_config({Isa::neon, 1}).find("neon"), std::string::npos);
#endif
#if defined(__x86_64__)
  EXPECT_NE(requantize_check_config({Isa::avx2, 3}).find("unroll 3"), std::string::npos);
  if (!cpu_features().usable(Isa::avx512vnni)) {
    EXPECT_NE(requantize_check_config({Isa::avx512vnni, 1}).find("avx512vnni is not usable"), std::string::npos);
  }
#endif
}

TEST(RequantizeConfig, ArgumentErrors) {
  const RequantParams tensor = RequantParams::make(RoundingMode::tflite, {0.1}, 0, -128, 127);
  const RequantParams channels = RequantParams::make(RoundingMode::tflite, {0.1, 0.2, 0.3}, 0, -128, 127);
  std::vector<std::int32_t> acc(12, 100);
  std::vector<std::int8_t> out(12);
  const RequantizeConfig scalar{Isa::scalar, 1};
  EXPECT_NE(error_of([&] { requantize({Isa::scalar, 3}, tensor, DType::s8, acc.data(), 1, 4, 4, out.data(), 4); })
                .find("unroll"),
            std::string::npos);
  EXPECT_NE(error_of([&] { requantize(scalar, tensor, DType::s32, acc.data(), 1, 4, 4, out.data(), 4); }).find("s32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { requantize(scalar, tensor, DType::u8, acc.data(), 1, 4, 4, out.data(), 4); }).find("u8"),
            std::string::npos);
  EXPECT_NE(error_of([&] { requantize(scalar, channels, DType::s8, acc.data(), 1, 4, 4, out.data(), 4); })
                .find("3 channels"),
            std::string::npos);
  EXPECT_NE(error_of([&] { requantize(scalar, tensor, DType::s8, acc.data(), 2, 4, 3, out.data(), 4); }).find("stride"),
            std::string::npos);
  EXPECT_NE(error_of([&] { requantize(scalar, tensor, DType::s8, nullptr, 2, 4, 4, out.data(), 4); }).find("null"),
            std::string::npos);
  // Empty matrices need no buffers.
  EXPECT_NO_THROW(requantize(scalar, tensor, DType::s8, nullptr, 0, 4, 4, nullptr, 4));
  EXPECT_NO_THROW(requantize(scalar, channels, DType::s8, acc.data(), 4, 3, 3, out.data(), 3));
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[1], 20);
  EXPECT_EQ(out[2], 30);
}

// The prepared form gives requantize()'s bytes for every variant, rounding mode, per-tensor and
// per-channel plans (also after a move), and names the same problems, at prepare or per call.
TEST(PreparedRequantize, MatchesRequantizeAndNamesTheProblem) {
  const std::size_t rows = 3, cols = 37, stride = 40;
  std::vector<std::int32_t> acc(rows * stride);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    acc[i] = static_cast<std::int32_t>((i * 2654435761u) ^ (i << 20));  // spread over the whole int32 range
  }
  acc[0] = INT32_MIN;
  acc[1] = INT32_MAX;
  std::vector<double> scales(cols);
  for (std::size_t c = 0; c < cols; ++c) scales[c] = 0.0003 * static_cast<double>(c + 1);
  int ran = 0;
  for (RoundingMode mode : {RoundingMode::tflite, RoundingMode::fp32, RoundingMode::upward, RoundingMode::tonearest,
                            RoundingMode::arm}) {
    for (const RequantParams& params :
         {RequantParams::make(mode, {0.02}, 3, 0, 255), RequantParams::make(mode, scales, 128, 10, 250)}) {
      for (const RequantizeConfig& config : requantize_variants()) {
        if (!requantize_check_config(config).empty()) continue;
        std::vector<std::uint8_t> expected(rows * stride, 7), got(rows * stride, 7);
        requantize(config, params, DType::u8, acc.data(), rows, cols, stride, expected.data(), stride);
        PreparedRequantize prepared(config, params, DType::u8);
        PreparedRequantize moved = std::move(prepared);
        moved.run(acc.data(), rows, cols, stride, got.data(), stride);
        EXPECT_EQ(got, expected) << to_string(config.isa) << " unroll " << config.unroll;
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, 10);
  const RequantParams tensor = RequantParams::make(RoundingMode::tflite, {0.1}, 0, -128, 127);
  const RequantParams channels = RequantParams::make(RoundingMode::tflite, {0.1, 0.2, 0.3}, 0, -128, 127);
  EXPECT_NE(error_of([&] { PreparedRequantize({Isa::scalar, 3}, tensor, DType::s8); }).find("unroll"), std::string::npos);
  EXPECT_NE(error_of([&] { PreparedRequantize({Isa::scalar, 1}, tensor, DType::u8); }).find("u8"), std::string::npos);
  const PreparedRequantize per_channel({Isa::scalar, 1}, channels, DType::s8);
  std::vector<std::int8_t> out(12);
  EXPECT_NE(error_of([&] { per_channel.run(acc.data(), 1, 4, 4, out.data(), 4); }).find("3 channels"), std::string::npos);
  EXPECT_NE(error_of([&] { per_channel.run(nullptr, 1, 3, 3, out.data(), 3); }).find("null"), std::string::npos);
}

}  // namespace
}  // namespace qtune
