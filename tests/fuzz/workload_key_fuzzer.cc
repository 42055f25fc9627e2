// The workload and target key parsers (database rows, logs, qtune space/measure --workload): any
// text parses or gives std::invalid_argument; a parsed key is valid and prints back canonically.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_check.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string key(reinterpret_cast<const char*>(data), size);
  try {
    const qtune::Workload workload = qtune::Workload::parse_key(key);
    workload.validate();
    const std::string canonical = workload.key();
    qtune::fuzz::require(qtune::Workload::parse_key(canonical).key() == canonical, "canonical keys are stable: " + canonical);
    (void)workload.describe();
    qtune::fuzz::require(workload.gops() >= 0, "work is never negative: " + canonical);
  } catch (const std::invalid_argument&) {
  }
  try {
    const qtune::Target target = qtune::Target::parse_key(key);
    const std::string canonical = target.key();
    qtune::fuzz::require(qtune::Target::parse_key(canonical).key() == canonical, "canonical target keys are stable: " + canonical);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
