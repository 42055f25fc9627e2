// `qtune import`: JSON-lines logs into a database, all or nothing, never twice.
#include <iostream>
#include <utility>

#include "cli.h"
#include "qtune/records/transfer.h"
#include "records_cli.h"

namespace {

int run_import(const qtune::cli::Args& args) {
  using namespace qtune::records;
  const std::string db_path = args.required("db");
  const auto& logs = args.positional();
  if (logs.empty()) throw qtune::cli::UsageError("no log files given (qtune import --db FILE LOG.jsonl...)");
  const bool skip_invalid = args.flag("skip-invalid");
  return qtune::cli::run_with_data_errors(args, [&] {
    // The logs first: an import that is refused must not create the database file.
    CheckedLogs checked = read_logs_for_import(logs, qtune::cli::search_space_validators(), skip_invalid);
    TuningDb db = qtune::cli::open_database(db_path, OpenMode::create);
    const ImportReport report = import_checked_logs(db, std::move(checked));
    for (const auto& p : report.skipped) std::cerr << "qtune import: skipped: " << p.to_string() << "\n";
    std::cout << db_path << ": imported " << report.counts.added << " measurement(s) from " << logs.size()
              << " file(s)";
    if (report.counts.already_present) std::cout << ", " << report.counts.already_present << " already present";
    if (report.skipped_lines) std::cout << ", " << report.skipped_lines << " invalid line(s) skipped";
    std::cout << "\n";
    return 0;
  });
}

}  // namespace

QTUNE_COMMAND("import", "add JSON-lines logs to a tuning database (one transaction, idempotent)",
              "qtune import --db FILE [--skip-invalid] LOG.jsonl...",
              {{"db", true, "FILE  the tuning database (created when missing)"},
               {"skip-invalid", false, "import the valid lines and report the others instead of importing nothing"}},
              run_import);
