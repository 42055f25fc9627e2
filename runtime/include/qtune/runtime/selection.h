// What the runtime chose for one layer, and why.
#pragma once

#include <string>
#include <string_view>

namespace qtune::runtime {

enum class ConfigSource : unsigned char {
  tuned,      // the configuration tuned for exactly this workload on this target
  nearest,    // the tuned configuration of the nearest tuned shape, adapted (shape_distance.h)
  heuristic,  // the kernels' built-in default (gemm_default_config / conv2d_default_config)
};
std::string_view to_string(ConfigSource source);

struct Selection {
  std::string workload_key;  // the layer (lookup_key of its workload)
  std::string config_key;    // the configuration that runs, as a search-space key
  ConfigSource source = ConfigSource::heuristic;
  std::string tuned_workload_key;  // whose tuned configuration it is (empty for heuristic)
  double distance = 0;             // shape_distance to tuned_workload_key (0 when tuned)
  // Empty when the layer runs its workload's best configuration; else why not: why it fell back,
  // or (still tuned) why the best of another kind measured for the workload runs instead.
  std::string reason;

  bool fell_back() const { return source != ConfigSource::tuned; }
};

// One line of the fallback report: a layer that did not get its own tuned configuration.
struct FallbackEntry {
  std::string workload_key;
  std::string config_key;
  std::string reason;
};

}  // namespace qtune::runtime
