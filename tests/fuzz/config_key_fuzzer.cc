// The configuration key parser of every operator's space (logs, qtune measure/bench --config): any
// text parses or gives InvalidConfig; a parsed configuration is valid and prints back canonically.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "qtune/search_space/operator_spaces.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const qtune::KnobSpace spaces[] = {qtune::full_space(qtune::OpKind::gemm),
                                            qtune::full_space(qtune::OpKind::conv2d)};
  const std::string key(reinterpret_cast<const char*>(data), size);
  for (const qtune::KnobSpace& space : spaces) {
    try {
      const qtune::Config config = space.parse(key);
      const std::string canonical = config.key();
      qtune::fuzz::require(space.check(config).empty(), "a parsed configuration is valid: " + canonical);
      qtune::fuzz::require(space.parse(canonical).key() == canonical, "canonical configurations are stable: " + canonical);
    } catch (const qtune::InvalidConfig&) {
    }
  }
  return 0;
}
