// The default destination of runtime warnings: standard error, one line each.
#include <cstdio>

#include "qtune/runtime/runtime.h"

namespace qtune::runtime {

WarningSink stderr_warning_sink() {
  return [](const std::string& message) {
    // One fprintf per line so that concurrent warnings do not interleave mid-line.
    std::fprintf(stderr, "qtune: warning: %s\n", message.c_str());
  };
}

}  // namespace qtune::runtime
