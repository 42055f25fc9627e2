#include "qtune/runtime/key_validators.h"

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
  v.config = [](const std::string& workload_key, const std::string& config_key) {
    const KnobSpace space = full_space(Workload::parse_key(workload_key).op);
    require_canonical(config_key, space.parse(config_key).key());
  };
  return v;
}

}  // namespace qtune::runtime
