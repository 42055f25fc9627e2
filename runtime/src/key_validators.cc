#include "qtune/runtime/key_validators.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "qtune/search_space/block_workload.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime {
namespace {

// Keys are compared as text (database lookups, log merging), so only one spelling is accepted.
void require_canonical(const std::string& given, const std::string& canonical) {
  if (given != canonical) throw std::invalid_argument("not in canonical form (expected '" + canonical + "')");
}

// The items of a key ("k=v;k=v") as (knob, value); an item without '=' has an empty value.
std::vector<std::pair<std::string, std::string>> key_items(const std::string& config_key) {
  std::vector<std::pair<std::string, std::string>> items;
  std::size_t start = 0;
  while (start < config_key.size()) {
    const std::size_t end = std::min(config_key.find(';', start), config_key.size());
    const std::string item = config_key.substr(start, end - start);
    const std::size_t eq = item.find('=');
    items.emplace_back(item.substr(0, eq), eq == std::string::npos ? std::string() : item.substr(eq + 1));
    start = end + 1;
  }
  return items;
}

// The knob names of a key the parser accepted.
std::set<std::string> knob_names(const std::string& config_key) {
  std::set<std::string> names;
  for (const auto& item : key_items(config_key)) names.insert(item.first);
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

// The runtime's heuristic default (runtime_select.cc) is not snapped into the blocking grid: the
// space with the key's own blocking values (kc, mc, nc: whole numbers) added to those knobs'
// domains, and no constraints (the kernels checked the configuration before it ran). Nothing when
// the key has no such value outside the grid.
std::optional<KnobSpace> with_blocking_values_of(const KnobSpace& space, const std::string& config_key) {
  std::vector<Knob> knobs = space.knobs();
  bool extended = false;
  for (const auto& [name, value] : key_items(config_key)) {
    if (name != "kc" && name != "mc" && name != "nc") continue;
    if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) continue;
    for (Knob& k : knobs) {
      if (k.name != name || std::find(k.values.begin(), k.values.end(), value) != k.values.end()) continue;
      k.values.push_back(value);
      if (!k.feature_values.empty()) k.feature_values.push_back(std::log2(std::max(1.0, std::stod(value))));
      extended = true;
    }
  }
  if (!extended) return std::nullopt;
  return KnobSpace(space.op(), std::move(knobs), {});
}

// The canonical spelling of a block's configuration: each member's a point of the conv2d space in
// that space's spelling (an older qtune's in the spelling it gave it).
std::string block_config_key(const std::map<OpKind, KnobSpace>& spaces, const std::string& workload_key,
                             const std::string& config_key) {
  const BlockWorkload block = BlockWorkload::parse_key(workload_key);
  BlockConfig config = BlockConfig::parse(config_key, block.members.size());
  for (std::string& member : config.member_configs) {
    const Config parsed = spaces.at(OpKind::conv2d).parse(member);
    require_canonical(member, spelled_without_newer_knobs(parsed, knob_names(member)));
    member = parsed.key();
  }
  return config.key();
}

}  // namespace

records::KeyValidators search_space_validators() {
  records::KeyValidators v;
  v.workload = [](const std::string& key) {
    if (is_block_key(key)) {
      const BlockWorkload block = BlockWorkload::parse_key(key);
      require_canonical(key, block.key());
      return records::WorkloadSummary{key, std::string(kInvertedResidualOp), block.gops(), block.describe()};
    }
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
    if (is_block_key(workload_key)) return block_config_key(*spaces, workload_key, config_key);
    const Config config = spaces->at(Workload::parse_key(workload_key).op).parse(config_key);
    // An older qtune's key is accepted in the spelling that qtune gave it, and only in that one.
    require_canonical(config_key, spelled_without_newer_knobs(config, knob_names(config_key)));
    return config.key();
  };
  v.run_config = [spaces, strict = v.config](const std::string& workload_key, const std::string& config_key) {
    if (is_block_key(workload_key)) return strict(workload_key, config_key);
    try {
      return strict(workload_key, config_key);
    } catch (const InvalidConfig&) {
      const KnobSpace& space = spaces->at(Workload::parse_key(workload_key).op);
      const std::optional<KnobSpace> ran = with_blocking_values_of(space, config_key);
      if (!ran) throw;  // no blocking value off the grid: the strict message stands
      const Config config = ran->parse(config_key);
      require_canonical(config_key, spelled_without_newer_knobs(config, knob_names(config_key)));
      return config.key();
    }
  };
  return v;
}

}  // namespace qtune::runtime
