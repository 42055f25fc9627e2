// `qtune report`: what tuning won, as one self-contained HTML page (charts and a sortable table),
// a Markdown summary for CI logs and pull requests, or JSON for scripts.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "qtune/records/tuning_db.h"
#include "qtune/reports/report_data.h"
#include "qtune/reports/report_format.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "records_cli.h"

namespace {

using qtune::cli::UsageError;
using qtune::records::DbError;
using qtune::records::OpenMode;
using qtune::records::TuningDb;

// --format, else the output file's extension, else HTML.
qtune::reports::ReportFormat format_of(const qtune::cli::Args& args) {
  if (auto name = args.value("format")) {
    auto format = qtune::reports::parse_report_format(*name);
    if (!format) throw UsageError("option --format: expected html, md or json, got '" + *name + "'");
    return *format;
  }
  const std::string output = args.value_or("o", "");
  auto ends_with = [&](const std::string& suffix) {
    return output.size() >= suffix.size() && output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".md")) return qtune::reports::ReportFormat::markdown;
  if (ends_with(".json")) return qtune::reports::ReportFormat::json;
  return qtune::reports::ReportFormat::html;
}

// Reports only read: a database of an older schema is read as it is (what it did not record
// shows as not recorded).
TuningDb open_for_report(const std::string& path) { return qtune::cli::open_database(path, OpenMode::read_only); }

void write_atomically(const std::string& path, const std::string& text) {
  // Written beside the destination and renamed: a failure never leaves half a report.
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc | std::ios::binary);
    if (!out) throw std::runtime_error(partial + ": cannot create");
    out << text;
    out.flush();
    if (!out) {
      std::remove(partial.c_str());
      throw std::runtime_error(partial + ": cannot write");
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    throw std::runtime_error(path + ": cannot write");
  }
}

int run_report(const qtune::cli::Args& args) {
  const std::string db_path = args.required("db");
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional().front() + "'");
  const auto format = format_of(args);

  qtune::reports::ReportOptions options;
  if (auto target = qtune::cli::resolve_target_option(args)) options.target_key = *target;
  options.preferred_target_key = qtune::current_target().key();
  if (auto file = args.value("workloads")) {
    try {
      options.workloads = qtune::load_workload_file(*file);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    options.workloads_origin = *file;
  }
  options.focus_layer = args.value_or("layer", "");
  const auto output = args.value("o");

  return qtune::cli::run_with_data_errors(args, [&] {
    TuningDb db = open_for_report(db_path);
    qtune::reports::ReportData data;
    try {
      data = qtune::reports::gather_report_data(db, options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    const std::string text = qtune::reports::render_report(data, format);
    if (!output || *output == "-") {
      std::cout << text;
      std::cout.flush();
      return 0;
    }
    write_atomically(*output, text);
    std::cerr << "qtune report: " << data.layers.size() << " layers, " << data.summary.trials << " trials of "
              << data.target_cpu << " -> " << *output << "\n";
    return 0;
  });
}

}  // namespace

QTUNE_COMMAND("report", "write a report of what tuning won: HTML with charts, Markdown or JSON",
              "qtune report --db FILE [--workloads FILE] [--target current|KEY] [--layer KEY|INDEX] "
              "[--format html|md|json] [-o FILE]",
              {{"db", true, "FILE  the tuning database"},
               {"workloads", true, "FILE  report the layers of this network file, weighted by their counts"},
               {"target", true, "KEY  the target to report ('current' = this machine; default: this machine if "
                                "measured, else the most measured target)"},
               {"layer", true, "KEY|INDEX  the layer of the heat map and fuse comparison (default: most time)"},
               {"format", true, "FORMAT  html (default), md or json; also taken from -o's extension"},
               {"o", true, "FILE  write here instead of standard output"}},
              run_report);
