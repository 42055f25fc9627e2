// search_space's parsers as records::KeyValidators.
#include "key_validation.h"

#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"

namespace qtune::runtime::detail {

records::KeyValidators search_space_validators() {
  records::KeyValidators v;
  v.workload = [](const std::string& key) {
    const Workload w = Workload::parse_key(key);
    records::WorkloadSummary s;
    s.key = key;
    s.op = std::string(to_string(w.op));
    s.gops = w.gops();
    s.description = w.describe();
    return s;
  };
  v.target = [](const std::string& key) { Target::parse_key(key); };
  v.config = [](const std::string& workload_key, const std::string& config_key) {
    full_space(Workload::parse_key(workload_key).op).parse(config_key);
  };
  return v;
}

}  // namespace qtune::runtime::detail
