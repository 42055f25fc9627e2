#include "qtune/kernels/build_info.h"

namespace qtune {

std::string version() { return QTUNE_VERSION_STRING; }

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace qtune
