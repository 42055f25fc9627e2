#include "library_algorithms.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "qtune/libraries/library_ops.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune::detail {

bool is_library(const std::string& algo) {
  const auto& known = libraries::known_libraries();
  return std::find(known.begin(), known.end(), algo) != known.end();
}

std::vector<std::string> offered_libraries(const Workload& workload) {
  // Asking a library means creating its primitive descriptor, and spaces are built per candidate:
  // the answer is kept per workload. Hiding a library (a test seam) changes it, so what each
  // library says of itself is part of the cache key.
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> cache;
  std::string key = workload.key();
  for (const std::string& name : libraries::compiled_libraries()) key.append(";").append(libraries::library_unavailable(name));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<std::string> offered;
    for (const std::string& name : libraries::compiled_libraries()) {
      const std::string why = workload.op == OpKind::gemm
                                  ? libraries::library_gemm_unsupported(name, workload.gemm_problem())
                                  : libraries::library_conv2d_unsupported(name, workload.conv2d_problem());
      if (why.empty()) offered.push_back(name);
    }
    it = cache.emplace(std::move(key), std::move(offered)).first;
  }
  return it->second;
}

}  // namespace qtune::detail

namespace qtune {

std::optional<LibraryConfig> to_library_config(const Config& config) {
  for (const auto& [knob, value] : config.assignments()) {
    if (knob == "algo" && detail::is_library(value)) return LibraryConfig{value, config.get_int("threads")};
  }
  return std::nullopt;
}

Config from_library_config(const LibraryConfig& config) {
  return Config({{"algo", config.library}, {"threads", std::to_string(config.threads)}});
}

std::vector<Config> library_configs(const KnobSpace& space) {
  std::vector<Config> out;
  const auto& knobs = space.knobs();
  const auto algo = std::find_if(knobs.begin(), knobs.end(), [](const Knob& k) { return k.name == "algo"; });
  const auto threads = std::find_if(knobs.begin(), knobs.end(), [](const Knob& k) { return k.name == "threads"; });
  if (algo == knobs.end() || threads == knobs.end()) return out;
  for (const std::string& value : algo->values) {
    if (!detail::is_library(value)) continue;
    for (const std::string& t : threads->values) {
      Config c = from_library_config({value, std::stoi(t)});
      if (space.check(c).empty()) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace qtune
