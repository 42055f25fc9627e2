// Names of configuration sources, as printed in reports and by `qtune run`.
#include "qtune/runtime/selection.h"

namespace qtune::runtime {

std::string_view to_string(ConfigSource source) {
  switch (source) {
    case ConfigSource::tuned: return "tuned";
    case ConfigSource::nearest: return "nearest";
    case ConfigSource::heuristic: return "heuristic";
  }
  return "?";
}

}  // namespace qtune::runtime
