// The standalone requantization kernel's variant list, config checks and argument errors.
#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace qtune
