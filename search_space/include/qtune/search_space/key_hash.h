// A key's stable hash: FNV-1a 64 with its fixed constants, so the value is the same on every
// machine, build and run (configuration hashes, the tuner's per-layer random streams).
#pragma once

#include <cstdint>
#include <string_view>

namespace qtune {

inline std::uint64_t key_hash(std::string_view key) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace qtune
