// The library values of a space's `algo` knob (gemm and conv2d): which vendor libraries a
// configuration may name, and which of them a concrete space offers for its workload. Internal.
#pragma once

#include <string>
#include <vector>

#include "qtune/search_space/workload.h"

namespace qtune::detail {

// Whether an `algo` value names a library (one of libraries::known_libraries()), not one of
// qtune's own algorithms.
bool is_library(const std::string& algo);

// The compiled-in libraries that compute `workload` exactly here (libraries::library_*_unsupported
// is empty), in known_libraries() order.
std::vector<std::string> offered_libraries(const Workload& workload);

}  // namespace qtune::detail
