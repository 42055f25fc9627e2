// --cache warm|cold: the cache state of the measurement protocol (docs/measurement-protocol.md),
// one option spelled alike by tune, run, bench and measure.
#pragma once

#include "cli.h"
#include "qtune/measure/cache_state.h"

namespace qtune::cli {

OptionSpec cache_option();
CacheState cache_from_args(const Args& args);  // warm when absent; UsageError for other words

}  // namespace qtune::cli
