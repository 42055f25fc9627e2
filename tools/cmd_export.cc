// `qtune export`: best configurations (or every measurement) as a qtune-log/1 JSON-lines file,
// to ship with a model or to move results to another database.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "qtune/records/transfer.h"
#include "qtune/reports/candidate_kinds.h"
#include "records_cli.h"

namespace {

// qtune's kernels or a library (--best writes the best of qtune's kernels after a library's).
std::string export_kind_of(const qtune::records::MeasurementRecord& m) {
  return qtune::reports::candidate_kind(m.config_key);
}

int run_export(const qtune::cli::Args& args) {
  using namespace qtune::records;
  const std::string db_path = args.required("db");
  if (args.flag("best") && args.flag("all")) throw qtune::cli::UsageError("--best and --all exclude each other");
  if (!args.positional().empty())
    throw qtune::cli::UsageError("unexpected argument '" + args.positional().front() + "'");
  const ExportSelection selection = args.flag("all") ? ExportSelection::all : ExportSelection::best;
  const auto target = qtune::cli::resolve_target_option(args);
  const auto output = args.value("o");
  return qtune::cli::run_with_data_errors(args, [&] {
    TuningDb db = qtune::cli::open_database(db_path, OpenMode::read_only);
    if (!output) {
      export_log(db, std::cout, selection, target, export_kind_of);
      return 0;
    }
    // Written beside the destination and renamed: a failed export never leaves half a log.
    const std::string partial = *output + ".partial";
    std::size_t lines = 0;
    {
      std::ofstream out(partial, std::ios::trunc);
      if (!out) throw std::runtime_error(partial + ": cannot create");
      try {
        lines = export_log(db, out, selection, target, export_kind_of);
      } catch (...) {
        std::remove(partial.c_str());
        throw;
      }
    }
    if (std::rename(partial.c_str(), output->c_str()) != 0) {
      std::remove(partial.c_str());
      throw std::runtime_error(*output + ": cannot write");
    }
    std::cerr << "qtune export: wrote " << lines << (selection == ExportSelection::best ? " best configurations" : " measurements")
              << " to " << *output << "\n";
    return 0;
  });
}

}  // namespace

QTUNE_COMMAND("export", "write best configurations (or all measurements) as a JSON-lines log",
              "qtune export --db FILE [--best|--all] [--target current|KEY] [-o FILE]",
              {{"db", true, "FILE  the tuning database"},
               {"best", false,
                "one line per (workload, target): the fastest correct configuration, and where that is a library's, the fastest of qtune's kernels after it (default)"},
               {"all", false, "every measurement, errors included"},
               {"target", true, "KEY  only this target ('current' = this machine)"},
               {"o", true, "FILE  write here instead of standard output"}},
              run_export);
