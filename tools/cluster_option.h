// --cluster big|little|CORE: which cluster of a big.LITTLE Arm machine `qtune tune` and `qtune
// measure` pin themselves to (qtune::pin_to_cluster); without it, the cluster they start on.
// main() pins before anything detects the CPU, so the target key names that cluster.
#pragma once

#include <string>

#include "cli.h"

namespace qtune::cli {

OptionSpec cluster_option();

// Whether the command takes --cluster, i.e. pins itself to one cluster before it runs.
bool pins_to_cluster(const Command& command);

// Pins the process as the parsed --cluster asks; the line saying where ("" on a homogeneous machine).
// UsageError when the request names no cluster of this machine.
std::string pin_from_args(const Args& args);

}  // namespace qtune::cli
