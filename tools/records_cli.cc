#include "records_cli.h"

#include <iostream>
#include <stdexcept>

#include "qtune/records/errors.h"
#include "qtune/records/log_format.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"

namespace qtune::cli {

namespace {

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

std::string resolve_target(const std::string& value) {
  if (value == "current") return current_target().key();
  try {
    Target::parse_key(value);
  } catch (const std::exception& e) {
    throw UsageError("option --target: '" + value + "' is neither 'current' nor a target key: " + e.what());
  }
  return value;
}

std::optional<std::string> resolve_target_option(const Args& args) {
  if (auto value = args.value("target")) return resolve_target(*value);
  return std::nullopt;
}

int run_with_data_errors(const Args& args, const std::function<int()>& body) {
  const std::string prefix = "qtune " + args.command() + ": ";
  try {
    return body();
  } catch (const records::LogError& e) {
    for (const auto& p : e.problems()) std::cerr << prefix << p.to_string() << "\n";
    std::cerr << prefix << e.problems().size() << " problem(s); nothing was imported (--skip-invalid imports the valid lines)\n";
    return 1;
  } catch (const records::DbError& e) {
    std::cerr << prefix << e.what() << "\n";
    return 1;
  }
}

}  // namespace qtune::cli
