// Int8 weights drawn for a layer that has only a shape (a workload file's), in one of two
// distributions:
// - trained: as per-channel symmetric quantization leaves a trained network's weights: in each
//   output channel the largest magnitude is 127 (the channel's scale maps it there) and most
//   weights are small, their magnitudes Laplace distributed (trained conv and fully connected
//   weights are heavy-tailed around zero): one channel of K weights holds one 127 and a few percent
//   of its weights above 64 (docs/x86-without-vnni.md). The default of `qtune run` and `qtune bench`: what a deployed network
//   multiplies, and what decides whether a peer's saturating instruction is exact.
// - uniform: every byte of [-128, 127] equally likely, the extremes everywhere (the tests' draw).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

namespace qtune {

enum class WeightDistribution : unsigned char { trained, uniform };

std::string_view to_string(WeightDistribution distribution);
std::optional<WeightDistribution> parse_weight_distribution(std::string_view name);

// `count` weights of `channels` output channels, weight i in channel i % channels (GEMM B as K x N,
// convolution weights as HWIO). channels >= 1.
std::vector<std::int8_t> draw_weights(WeightDistribution distribution, std::size_t count, std::size_t channels,
                                      std::mt19937_64& rng);

}  // namespace qtune
