#include "qtune/runtime/key_validators.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime {
namespace {

// Keys are compared as text (database lookups, log merging), so only one spelling is accepted.
void require_canonical(const std::string& given, const std::string& canonical) {
  if (given != canonical) throw std::invalid_argument("not in canonical form (expected '" + canonical + "')");
}

// The knob names of a key the parser accepted ("k=v;k=v").
std::set<std::string> knob_names(const std::string& config_key) {
  std::set<std::string> names;
  std::size_t start = 0;
  while (start < config_key.size()) {
    const std::size_t end = std::min(config_key.find(';', start), config_key.size());
    names.insert(config_key.substr(start, config_key.find('=', start) - start));
    start = end + 1;
  }
  return names;
}

// The configuration as a qtune that had only the knobs `present` spelled it: the knobs added since
// (which the parser filled with their defaults) left out, the others in canonical order.
std::string spelled_without_newer_knobs(const Config& config, const std::set<std::string>& present) {
  std::vector<std::pair<std::string, std::string>> older;
  for (const auto& assignment : config.assignments()) {
    if (present.count(assignment.first)) older.push_back(assignment);
  }
  return Config(std::move(older)).key();
}

}  // namespace

records::KeyValidators search_space_validators() {
  records::KeyValidators v;
  v.workload = [](const std::string& key) {
    const Workload workload = Workload::parse_key(key);
    require_canonical(key, workload.key());
    records::WorkloadSummary summary;
    summary.key = key;
    summary.op = std::string(to_string(workload.op));
    summary.gops = workload.gops();
    summary.description = workload.describe();
    return summary;
  };
  v.target = [](const std::string& key) { require_canonical(key, Target::parse_key(key).key()); };
  // Built once: the runtime and the database readers check a key per row.
  auto spaces = std::make_shared<const std::map<OpKind, KnobSpace>>(
      std::map<OpKind, KnobSpace>{{OpKind::gemm, full_space(OpKind::gemm)}, {OpKind::conv2d, full_space(OpKind::conv2d)}});
  v.config = [spaces](const std::string& workload_key, const std::string& config_key) {
    const Config config = spaces->at(Workload::parse_key(workload_key).op).parse(config_key);
    // An older qtune's key is accepted in the spelling that qtune gave it, and only in that one.
    require_canonical(config_key, spelled_without_newer_knobs(config, knob_names(config_key)));
    return config.key();
  };
  return v;
}

}  // namespace qtune::runtime
