#include "cluster_option.h"

#include <algorithm>
#include <stdexcept>

#include "qtune/kernels/cpu_features.h"

namespace qtune::cli {

OptionSpec cluster_option() {
  return {"cluster", true,
          "big|little|CORE  on a big.LITTLE Arm machine, the cluster to pin to and tune for (default: the one the "
          "process starts on); CORE is a core name such as Cortex-A55"};
}

bool pins_to_cluster(const Command& command) {
  return std::any_of(command.options.begin(), command.options.end(),
                     [](const OptionSpec& o) { return o.name == "cluster"; });
}

std::string pin_from_args(const Args& args) {
  try {
    return pin_to_cluster(args.value_or("cluster", ""));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace qtune::cli
