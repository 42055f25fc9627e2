// Which vendor libraries (oneDNN, ...) this build can offer as tuning candidates, and whether one
// can run here. The kernels know nothing of libraries; the search space, the measurer and the
// runtime ask here before they offer, measure or prepare a library configuration.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qtune::libraries {

// Every library a configuration key may name, compiled into this build or not ("onednn"): keys
// from other builds' logs parse, and the runtime falls back from those it lacks.
const std::vector<std::string>& known_libraries();

// The names ("onednn") of the libraries compiled into this build, whether or not usable here.
const std::vector<std::string>& compiled_libraries();

// "" when `name` can run bit-exact int8 layers in this process, else why not: not compiled into
// this build, left out by QTUNE_LIBRARIES or hidden (below), or this CPU lacks what its exact path
// needs (oneDNN: an x86 CPU with an int8 dot product instruction; without one it halves the weights
// and rescales in float; its aarch64 implementations are not checked for exactness).
std::string library_unavailable(std::string_view name);

// QTUNE_LIBRARIES=NAME[,NAME...] or QTUNE_LIBRARIES=none restricts the libraries a process may use
// to those named, as QTUNE_ISAS restricts the instruction sets: `QTUNE_LIBRARIES=none qtune tune`
// tunes qtune's own kernels only, and a runtime so restricted falls back from tuning data that
// chose a library, with its warning. Unset or empty: every library compiled in. Returns "" unless
// the variable names a library qtune does not know, then what is wrong (the program refuses to run).
std::string library_restriction_error();

// Makes this process behave as a build without `name` (hidden = true) or undoes it: the seam that
// tests the fallback of tuning data naming a library the runtime lacks, without a second build.
void set_library_hidden(std::string_view name, bool hidden);

}  // namespace qtune::libraries
