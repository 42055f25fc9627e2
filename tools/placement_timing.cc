#include "placement_timing.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qtune::cli {
namespace {

constexpr std::size_t kCacheLine = 64, kPage = 4096;

std::size_t random_lines_below_page(std::mt19937_64& rng) {
  return kCacheLine * std::uniform_int_distribution<std::size_t>(0, kPage / kCacheLine - 1)(rng);
}

}  // namespace

PlacedBytes::PlacedBytes(std::size_t size, std::mt19937_64& rng)
    : storage_(size + kPage), offset_(random_lines_below_page(rng)), size_(size) {}

PlacedBytes::PlacedBytes(const std::vector<std::uint8_t>& values, std::mt19937_64& rng)
    : PlacedBytes(values.size(), rng) {
  if (!values.empty()) std::memcpy(data(), values.data(), values.size());
}

bool PlacedBytes::operator==(const PlacedBytes& other) const {
  return size_ == other.size_ && (size_ == 0 || std::memcmp(data(), other.data(), size_) == 0);
}

std::vector<std::uint8_t> placement_spacer(std::mt19937_64& rng) {
  return std::vector<std::uint8_t>(kCacheLine + random_lines_below_page(rng));
}

PlacementShare share_among_placements(int repetitions) {
  const int placements = std::clamp(repetitions, 1, kPlacements);
  return {placements, std::max(1, (repetitions + placements - 1) / placements)};
}

std::vector<CaseTiming> time_at_placements(const std::function<std::vector<TimedCase>()>& place, int repetitions,
                                           unsigned seed, int threads, CacheState cache) {
  const PlacementShare share = share_among_placements(repetitions);
  std::mt19937 rng(seed);
  std::vector<std::vector<TimedCase>> held;  // every placement, until the last is timed
  std::vector<std::vector<double>> pooled;
  for (int i = 0; i < share.placements; ++i) {
    held.push_back(place());
    const auto samples =
        time_interleaved_samples(held.back(), share.repetitions_each, static_cast<unsigned>(rng()), threads, cache);
    if (pooled.empty()) pooled.resize(samples.size());
    if (samples.size() != pooled.size()) throw std::logic_error("time_at_placements: placements differ in their cases");
    for (std::size_t c = 0; c < samples.size(); ++c) pooled[c].insert(pooled[c].end(), samples[c].begin(), samples[c].end());
  }
  std::vector<CaseTiming> out;
  for (auto& samples : pooled) out.push_back(case_timing(std::move(samples)));
  return out;
}

}  // namespace qtune::cli
