#include "qtune/measure/drawn_weights.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qtune {

std::string_view to_string(WeightDistribution distribution) {
  switch (distribution) {
    case WeightDistribution::trained: return "trained";
    case WeightDistribution::uniform: return "uniform";
  }
  return "?";
}

std::optional<WeightDistribution> parse_weight_distribution(std::string_view name) {
  for (const auto d : {WeightDistribution::trained, WeightDistribution::uniform}) {
    if (to_string(d) == name) return d;
  }
  return std::nullopt;
}

std::vector<std::int8_t> draw_weights(WeightDistribution distribution, std::size_t count, std::size_t channels,
                                      std::mt19937_64& rng) {
  if (channels == 0) throw std::invalid_argument("draw_weights: channels must be at least 1");
  std::vector<std::int8_t> out(count);
  if (distribution == WeightDistribution::uniform) {
    std::uniform_int_distribution<int> byte(-128, 127);
    for (auto& w : out) w = static_cast<std::int8_t>(byte(rng));
    return out;
  }
  // Laplace draws, then each channel scaled so that its largest magnitude becomes 127.
  std::vector<double> raw(count);
  std::exponential_distribution<double> magnitude(1.0);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> largest(channels, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    raw[i] = negative(rng) ? -magnitude(rng) : magnitude(rng);
    largest[i % channels] = std::max(largest[i % channels], std::abs(raw[i]));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const double scale = largest[i % channels];
    out[i] = static_cast<std::int8_t>(scale > 0 ? std::lround(127.0 * raw[i] / scale) : 0);
  }
  return out;
}

}  // namespace qtune
