// Buffers at random placements in memory. Where a layer's buffers and prepared weights land
// (which cache sets, which pages, how far apart modulo the page) moves its time by up to a fifth
// on small layers (docs/measurement-protocol.md "Placements"). `qtune run` times every layer at
// several placements, and each tuning measurement draws a placement of its own
// (measure_in_process), so that the tuner's median over a configuration's measurements is over
// placements too and not over one placement that a process happened to get.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace qtune {

// A placement's buffer: `size` bytes at a random offset (a multiple of the cache line below a
// page) into a fresh allocation. Placements that allocate the same sizes in the same order would
// otherwise keep their buffers at the same offsets to one another modulo the page, and those
// offsets (4K aliasing of loads with stores, the cache sets buffers share) are what moves between
// runs.
class PlacedBytes {
 public:
  PlacedBytes(const std::vector<std::uint8_t>& values, std::mt19937_64& rng);  // a copy of values
  PlacedBytes(std::size_t size, std::mt19937_64& rng);                         // zeros
  std::uint8_t* data() { return storage_.data() + offset_; }
  const std::uint8_t* data() const { return storage_.data() + offset_; }
  std::size_t size() const { return size_; }
  bool operator==(const PlacedBytes& other) const;

 private:
  std::vector<std::uint8_t> storage_;
  std::size_t offset_ = 0, size_ = 0;
};

// An allocation of random size (cache lines, up to a page) to be held before something allocates
// what it needs (a prepared kernel's packed weights and scratch), which then lands at another
// offset than in the previous placement.
std::vector<std::uint8_t> placement_spacer(std::mt19937_64& rng);

}  // namespace qtune
