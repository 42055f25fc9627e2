#include "qtune/measure/cache_state.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "qtune/kernels/cpu_features.h"

namespace qtune {

std::string_view to_string(CacheState state) { return state == CacheState::cold ? "cold" : "warm"; }

std::optional<CacheState> parse_cache_state(std::string_view name) {
  if (name == "warm") return CacheState::warm;
  if (name == "cold") return CacheState::cold;
  return std::nullopt;
}

void evict_caches() {
  // Not the whole last-level cache: on a server part it holds hundreds of MiB, more than a network
  // touches between two calls of one of its layers.
  static std::vector<char> buffer = [] {
    const std::int64_t l2 = cpu_features().l2_bytes;
    return std::vector<char>(static_cast<std::size_t>(std::max<std::int64_t>(2 * l2, std::int64_t{32} << 20)));
  }();
  static char value = 0;
  ++value;
  volatile char* bytes = buffer.data();  // the stores must happen although nothing reads them
  for (std::size_t i = 0; i < buffer.size(); i += 64) bytes[i] = value;
}

double time_one_call(const std::function<void()>& run, CacheState state) {
  if (state == CacheState::cold) evict_caches();
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int calls_per_repetition(double call_seconds, double repetition_seconds, CacheState state) {
  const double most = state == CacheState::cold ? 16.0 : 1000.0;
  return static_cast<int>(std::clamp(repetition_seconds / std::max(call_seconds, 1e-9), 1.0, most));
}

}  // namespace qtune
