// The workload file reader (workloads/*.json, qtune tune --workloads): any bytes give a file or
// std::invalid_argument naming the problem; every layer it accepts has a valid, canonical key.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "qtune/json_input/bounded_parse.h"
#include "qtune/search_space/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  qtune::WorkloadFile file;
  try {
    file = qtune::parse_workload_json(qtune::json_input::parse_bounded(text), "fuzz.json");
  } catch (const qtune::json_input::JsonInputError&) {
    return 0;
  } catch (const std::invalid_argument& e) {
    qtune::fuzz::require(std::string(e.what()).rfind("fuzz.json: ", 0) == 0, "errors name the file: " + std::string(e.what()));
    return 0;
  }
  qtune::fuzz::require(!file.layers.empty() && !file.network.empty(), "a file has a network and layers");
  for (const qtune::Layer& layer : file.layers) {
    qtune::fuzz::require(layer.count >= 1, "layer counts are positive");
    const std::string key = layer.workload.key();
    qtune::Workload reparsed;
    try {
      reparsed = qtune::Workload::parse_key(key);
    } catch (const std::exception& e) {
      qtune::fuzz::invariant_failed("an accepted layer's key parses: " + key + ": " + e.what());
    }
    qtune::fuzz::require(reparsed.key() == key, "layer keys are canonical: " + key);
    (void)qtune::layer_to_json(layer).dump();
  }
  return 0;
}
