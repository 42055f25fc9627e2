// `qtune merge`: combine the databases of several devices (or the shards of a fleet tuning run,
// `qtune tune --shard`) into one; targets stay apart, and merging the same file again adds
// nothing, so a merge can be rerun whenever a shard's database is replaced by a more complete one.
// With --require, it then reports per target which layers of a network are still untuned.
#include <iostream>
#include <optional>

#include "cli.h"
#include "qtune/records/tuning_db.h"
#include "qtune/search_space/workload.h"
#include "records_cli.h"

namespace {

using qtune::records::TuningDb;

// Per target in the merged database: how many layers of the network are tuned, and which are not.
// Returns whether every target has every layer (and there is at least one target).
bool report_coverage(const TuningDb& db, const qtune::WorkloadFile& network, const std::string& file) {
  const std::string name = network.network.empty() ? file : network.network;
  const std::size_t layers = network.layers.size();
  const auto targets = db.targets();
  if (targets.empty()) {
    std::cout << db.path() << ": no target has measurements: all " << layers << " layers of " << name
              << " are missing\n";
    return false;
  }
  bool complete = true;
  for (const auto& target : targets) {
    const auto missing = qtune::cli::missing_layers(db, target.key, network);
    std::cout << db.path() << ": " << layers - missing.size() << " of " << layers << " layers of " << name
              << " have a tuned correct configuration for target " << target.key << "\n";
    if (missing.empty()) continue;
    complete = false;
    std::cout << "missing:\n";
    qtune::cli::print_missing_layers(std::cout, missing);
  }
  return complete;
}

int run_merge(const qtune::cli::Args& args) {
  using namespace qtune::records;
  const std::string into = args.required("into");
  const auto& sources = args.positional();
  if (sources.empty()) throw qtune::cli::UsageError("no databases to merge (qtune merge --into A.db B.db...)");
  // The network is read before anything is written, so a bad file is a usage error that changes nothing.
  std::optional<qtune::WorkloadFile> network;
  const auto required = args.value("require");
  if (required) {
    try {
      network = qtune::load_workload_file(*required);
    } catch (const std::exception& e) {
      throw qtune::cli::UsageError(std::string("option --require: ") + e.what());
    }
  }
  return qtune::cli::run_with_data_errors(args, [&] {
    // Check every source before writing anything, so one bad file leaves the target untouched.
    for (const auto& source : sources) qtune::cli::open_database(source, OpenMode::read_only);
    TuningDb db = qtune::cli::open_database(into, OpenMode::create);
    for (const auto& source : sources) {
      const TransferCounts counts = db.merge_from(source);
      std::cout << into << ": merged " << source << ": " << counts.added << " measurement(s) and "
                << counts.sessions_added << " session(s) added, " << counts.already_present << " already present\n";
    }
    if (!network) return 0;
    return report_coverage(db, *network, *required) ? 0 : 1;
  });
}

}  // namespace

QTUNE_COMMAND("merge", "merge tuning databases (e.g. from several devices or fleet shards) into one",
              "qtune merge --into FILE [--require WORKLOADS.json] DB...",
              {{"into", true, "FILE  the database to merge into (created when missing)"},
               {"require", true,
                "FILE  after merging, list per target the layers of this workload file still untuned; exit 1 if any"}},
              run_merge);
