// Version and toolchain of this build: part of every target key, so that results tuned with one
// qtune/compiler are never silently mixed with another's.
#pragma once

#include <string>

namespace qtune {

std::string version();   // "0.1.0"
std::string compiler();  // "gcc 12.2.0"

}  // namespace qtune
