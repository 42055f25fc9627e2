// The cache state a kernel is timed in, one setting for `qtune tune`, `qtune run` and `qtune bench`
// (docs/measurement-protocol.md). Warm: calls back to back, the layer's data and weights stay in
// the caches from one call to the next. Cold: before every timed call a network-sized buffer is
// written (not timed), as the other layers of a network pass their data through the caches between
// two calls of one layer.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

namespace qtune {

enum class CacheState : unsigned char { warm, cold };

std::string_view to_string(CacheState state);                     // "warm", "cold"
std::optional<CacheState> parse_cache_state(std::string_view name);  // nullopt for anything else

// Writes the eviction buffer once (32 MiB or twice the per-core L2 cache, whichever is larger: a
// ResNet-50's int8 weights and activations are about 30 MiB).
void evict_caches();

// Seconds of one call of `run`, after evict_caches() when cold (the eviction is not timed).
double time_one_call(const std::function<void()>& run, CacheState state);

// How many calls make one repetition of about `repetition_seconds` for a call of `call_seconds`:
// warm at most 1000, cold at most 16 (each cold call costs an eviction besides).
int calls_per_repetition(double call_seconds, double repetition_seconds, CacheState state);

}  // namespace qtune
