// `qtune merge`: combine the databases of several devices into one; targets stay apart, and
// merging the same file again adds nothing.
#include <iostream>

#include "cli.h"
#include "qtune/records/tuning_db.h"
#include "records_cli.h"

namespace {

int run_merge(const qtune::cli::Args& args) {
  using namespace qtune::records;
  const std::string into = args.required("into");
  const auto& sources = args.positional();
  if (sources.empty()) throw qtune::cli::UsageError("no databases to merge (qtune merge --into A.db B.db...)");
  return qtune::cli::run_with_data_errors(args, [&] {
    // Check every source before writing anything, so one bad file leaves the target untouched.
    for (const auto& source : sources) TuningDb::open(source, OpenMode::read_only);
    TuningDb db = TuningDb::open(into, OpenMode::create);
    for (const auto& source : sources) {
      const TransferCounts counts = db.merge_from(source);
      std::cout << into << ": merged " << source << ": " << counts.added << " measurement(s) and "
                << counts.sessions_added << " session(s) added, " << counts.already_present << " already present\n";
    }
    return 0;
  });
}

}  // namespace

QTUNE_COMMAND("merge", "merge tuning databases (e.g. from several devices) into one",
              "qtune merge --into FILE DB...", {{"into", true, "FILE  the database to merge into (created when missing)"}},
              run_merge);
