// measure/drawn_weights.h: the trained-like draw has each channel's largest magnitude at 127 and
// most weights small; the uniform draw reaches both ends of int8; both are repeatable from a seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "qtune/measure/drawn_weights.h"

namespace qtune {
namespace {

TEST(DrawnWeights, TrainedChannelsPeakAt127WithMostWeightsSmall) {
  std::mt19937_64 rng(3);
  const std::size_t k = 1152, channels = 96;
  const auto w = draw_weights(WeightDistribution::trained, k * channels, channels, rng);
  ASSERT_EQ(w.size(), k * channels);
  std::size_t small = 0, large = 0;
  for (std::size_t c = 0; c < channels; ++c) {
    int peak = 0;
    for (std::size_t i = c; i < w.size(); i += channels) peak = std::max(peak, std::abs(int{w[i]}));
    EXPECT_EQ(peak, 127) << "channel " << c;
  }
  for (std::int8_t x : w) {
    EXPECT_NE(x, -128);  // symmetric quantization
    small += std::abs(int{x}) <= 32;
    large += std::abs(int{x}) > 64;
  }
  EXPECT_GT(small, w.size() * 3 / 4);
  EXPECT_LT(large, w.size() / 20);
  EXPECT_GT(large, 0u);
}

TEST(DrawnWeights, UniformReachesBothEnds) {
  std::mt19937_64 rng(3);
  const auto w = draw_weights(WeightDistribution::uniform, 4096, 16, rng);
  EXPECT_EQ(*std::min_element(w.begin(), w.end()), -128);
  EXPECT_EQ(*std::max_element(w.begin(), w.end()), 127);
}

TEST(DrawnWeights, RepeatableAndNamed) {
  std::mt19937_64 a(9), b(9);
  EXPECT_EQ(draw_weights(WeightDistribution::trained, 999, 7, a), draw_weights(WeightDistribution::trained, 999, 7, b));
  EXPECT_EQ(parse_weight_distribution("trained"), WeightDistribution::trained);
  EXPECT_EQ(parse_weight_distribution("uniform"), WeightDistribution::uniform);
  EXPECT_EQ(parse_weight_distribution("gaussian"), std::nullopt);
  std::mt19937_64 rng(1);
  EXPECT_THROW(draw_weights(WeightDistribution::trained, 4, 0, rng), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
