// What the database commands (export, import, merge, query, report, run, tune) share: databases
// opened with the key validators of search_space (qtune/runtime/key_validators.h), "current"
// target resolution, and printing database/log errors the way the CLI promises
// ("qtune import: tuning.db: not a qtune database (no qtune schema)", exit 1).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "qtune/records/tuning_db.h"
#include "qtune/records/tuning_records.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/workload.h"

namespace qtune::cli {

// Validators that accept only keys search_space parses and spells the same way (canonical), so
// that one layer or configuration never has two identities in a database.
using runtime::search_space_validators;

// The database at `path` opened with search_space_validators(): what every command opens, so that
// each writes only canonical keys and reads older keys in today's spelling.
records::TuningDb open_database(const std::string& path, records::OpenMode mode);

// "current" -> this machine's target key; any other value must parse as a target key.
std::string resolve_target(const std::string& value);
std::optional<std::string> resolve_target_option(const Args& args);  // --target, when given

// The layers of a network without a tuned correct configuration for a target: what the CI gate
// (`query --require`) and `merge --require` report.
struct MissingLayer {
  std::string name, key, description;
};
std::vector<MissingLayer> missing_layers(const records::TuningRecords& records, const std::string& target_key,
                                         const WorkloadFile& network);
// One line per missing layer: name, short description, workload key.
void print_missing_layers(std::ostream& out, const std::vector<MissingLayer>& missing);

// The tuned configurations of --db or --log (not both) for --target or this machine, as `run` and
// `infer` take them; no tuning data gives the defaults. A log with invalid lines is an error
// listing them.
runtime::Runtime load_runtime(const Args& args);

// Runs a command body, turning records/log errors into "qtune <cmd>: <message>" and exit 1.
int run_with_data_errors(const Args& args, const std::function<int()>& body);

}  // namespace qtune::cli
