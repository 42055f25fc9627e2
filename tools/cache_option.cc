#include "cache_option.h"

namespace qtune::cli {

OptionSpec cache_option() {
  return {"cache", true,
          "warm|cold  warm (default): calls back to back, as qtune run times layers; cold: a network-sized buffer "
          "written before every timed call, as other layers do between two calls of a layer in a network"};
}

CacheState cache_from_args(const Args& args) {
  const std::string word = args.value_or("cache", "warm");
  const auto state = parse_cache_state(word);
  if (!state) throw UsageError("option --cache: expected warm or cold, got '" + word + "'");
  return *state;
}

}  // namespace qtune::cli
