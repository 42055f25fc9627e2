#include "records_cli.h"

#include <iostream>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "qtune/records/errors.h"
#include "qtune/records/log_format.h"
#include "qtune/search_space/target.h"

namespace qtune::cli {

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

records::TuningDb open_database(const std::string& path, records::OpenMode mode) {
  return records::TuningDb::open(path, mode, search_space_validators());
}

std::vector<MissingLayer> missing_layers(const records::TuningRecords& records, const std::string& target_key,
                                         const WorkloadFile& network) {
  std::vector<MissingLayer> missing;
  for (const auto& layer : network.layers) {
    const std::string key = layer.workload.key();
    if (!records.best(key, target_key)) missing.push_back({layer.name, key, layer.workload.describe()});
  }
  return missing;
}

void print_missing_layers(std::ostream& out, const std::vector<MissingLayer>& missing) {
  const auto padded = [](const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
  };
  for (const auto& m : missing) out << "  " << padded(m.name, 24) << padded(m.description, 34) << m.key << "\n";
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

runtime::Runtime load_runtime(const Args& args) {
  runtime::RuntimeOptions options;
  if (auto target = resolve_target_option(args)) options.target_key = *target;
  const auto db = args.value("db"), log = args.value("log");
  if (db && log) throw UsageError("give --db or --log, not both");
  try {
    if (db) return runtime::Runtime::from_database(*db, std::move(options));
    if (log) return runtime::Runtime::from_log(*log, std::move(options));
  } catch (const records::LogError& e) {
    std::ostringstream problems;
    for (const auto& p : e.problems()) problems << "\n  " << p.to_string();
    throw std::runtime_error("the log has " + std::to_string(e.problems().size()) + " invalid line(s):" + problems.str());
  }
  return runtime::Runtime(std::move(options));
}

}  // namespace qtune::cli
