#include "qtune/measure/placed_bytes.h"

#include <cstring>

namespace qtune {
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

}  // namespace qtune
