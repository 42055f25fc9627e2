// `qtune query`: what a tuning database holds (targets, workloads, best configurations), and the
// CI check that every layer of a network has a tuned, correct configuration for a target.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "qtune/records/tuning_db.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/target_compatibility.h"
#include "qtune/search_space/workload.h"
#include "qtune/measure/number_text.h"
#include "records_cli.h"

namespace {

using qtune::records::BestRecord;
using qtune::records::MeasurementFilter;
using qtune::records::TuningDb;

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

nlohmann::json best_json(const BestRecord& b) {
  const auto& m = b.measurement;
  const auto& s = *m.stats;
  return {{"workload", m.workload_key},
          {"target", m.target_key},
          {"config", m.config_key},
          {"stats",
           {{"median_ns", s.median_ns}, {"min_ns", s.min_ns}, {"max_ns", s.max_ns}, {"mean_ns", s.mean_ns},
            {"stddev_ns", s.stddev_ns}, {"cv", s.cv}, {"repetitions", s.repetitions}, {"iterations", s.iterations},
            {"gops", s.gops}}},
          {"trials", b.trials},
          {"failures", b.failures},
          {"timestamp", m.timestamp},
          {"source", to_string(m.source)}};
}

int list(const qtune::cli::Args& args, const TuningDb& db, const MeasurementFilter& filter) {
  const auto targets = db.targets();
  const auto workloads = db.workloads(filter);
  const auto best = db.all_best(filter);
  std::map<std::string, std::string> workload_names;  // key -> description
  for (const auto& w : workloads) workload_names[w.key] = w.description.empty() ? w.key : w.description;

  if (args.flag("json")) {
    nlohmann::json out = {{"database", db.path()}, {"schema_version", db.schema_version()}};
    out["targets"] = nlohmann::json::array();
    for (const auto& t : targets) {
      if (filter.target_key && t.key != *filter.target_key) continue;
      out["targets"].push_back({{"key", t.key}, {"arch", t.arch}, {"cpu", t.cpu}, {"measurements", t.measurements}});
    }
    out["workloads"] = nlohmann::json::array();
    for (const auto& w : workloads) {
      out["workloads"].push_back({{"key", w.key},
                                  {"op", w.op},
                                  {"gops", w.gops ? nlohmann::json(*w.gops) : nlohmann::json(nullptr)},
                                  {"description", w.description},
                                  {"measurements", w.measurements}});
    }
    out["best"] = nlohmann::json::array();
    for (const auto& b : best) out["best"].push_back(best_json(b));
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  // Target keys are long: number them and refer to them by number in the table.
  std::map<std::string, int> target_number;
  std::cout << db.path() << " (schema " << db.schema_version() << ")\n\ntargets:\n";
  int number = 0;
  for (const auto& t : targets) {
    target_number[t.key] = ++number;
    if (filter.target_key && t.key != *filter.target_key) continue;
    std::cout << "  T" << number << "  " << t.key << "  (" << t.measurements << " measurements)\n";
  }
  std::cout << "\nworkloads (" << workloads.size() << "):\n";
  for (const auto& w : workloads) {
    char gops[32] = "";
    if (w.gops) std::snprintf(gops, sizeof gops, "%.3f GOP", *w.gops);
    std::cout << "  " << padded(w.description, 34) << padded(gops, 12) << w.key << "\n";
  }
  std::cout << "\nbest configurations (" << best.size() << "):\n";
  if (best.empty()) return 0;
  std::cout << "  " << padded("workload", 34) << padded("target", 7) << padded("median", 11) << padded("GOP/s", 9)
            << padded("tried", 6) << padded("failed", 7) << "config\n";
  for (const auto& b : best) {
    const auto& m = b.measurement;
    char gops[32];
    std::snprintf(gops, sizeof gops, "%.2f", m.stats->gops);
    char target[16];  // snprintf rather than "T" + to_string: GCC 12 misreports -Wrestrict there
    std::snprintf(target, sizeof target, "T%d", target_number[m.target_key]);
    std::cout << "  " << padded(workload_names.count(m.workload_key) ? workload_names[m.workload_key] : m.workload_key, 34)
              << padded(target, 7) << padded(qtune::format_time_ns(m.stats->median_ns), 11)
              << padded(gops, 9) << padded(std::to_string(b.trials), 6) << padded(std::to_string(b.failures), 7)
              << m.config_key << "\n";
  }
  return 0;
}

int require(const qtune::cli::Args& args, const TuningDb& db, const std::string& target, const std::string& file) {
  const qtune::WorkloadFile network = qtune::load_workload_file(file);
  const auto missing = qtune::cli::missing_layers(db, target, network);
  const std::size_t layers = network.layers.size();
  if (args.flag("json")) {
    nlohmann::json out = {{"database", db.path()},     {"network", network.network},
                          {"target", target},          {"layers", layers},
                          {"complete", missing.empty()}, {"missing", nlohmann::json::array()}};
    for (const auto& m : missing) out["missing"].push_back({{"name", m.name}, {"workload", m.key}});
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << db.path() << ": " << layers - missing.size() << " of " << layers << " layers of "
              << (network.network.empty() ? file : network.network)
              << " have a tuned correct configuration for target " << target << "\n";
    if (!missing.empty()) {
      std::cout << "missing:\n";
      qtune::cli::print_missing_layers(std::cout, missing);
    }
  }
  return missing.empty() ? 0 : 1;
}

int run_query(const qtune::cli::Args& args) {
  const std::string db_path = args.required("db");
  if (!args.positional().empty())
    throw qtune::cli::UsageError("unexpected argument '" + args.positional().front() + "'");
  MeasurementFilter filter;
  if (auto op = args.value("op")) {
    if (*op != "gemm" && *op != "conv2d" && *op != "inverted_residual")
      throw qtune::cli::UsageError("option --op must be gemm, conv2d or inverted_residual (blocks), got '" + *op + "'");
    filter.op = *op;
  }
  filter.shape_contains = args.value("shape");
  filter.target_key = qtune::cli::resolve_target_option(args);
  const auto required = args.value("require");
  if (required && (filter.op || filter.shape_contains))
    throw qtune::cli::UsageError("--require checks a whole network; --op and --shape do not apply");
  std::string require_target = required ? filter.target_key.value_or(qtune::cli::resolve_target("current")) : "";
  // This process's target ('current', the default) takes its nearest compatible target's tuning
  // when nothing was tuned for exactly it (a pinned CI job, QTUNE_ISAS); a named KEY is exact.
  const bool this_process = !args.value("target") || *args.value("target") == "current";
  return qtune::cli::run_with_data_errors(args, [&] {
    TuningDb db = qtune::cli::open_database(db_path, qtune::records::OpenMode::read_only);
    if (required && this_process) {
      std::vector<std::string> keys;
      for (const auto& t : db.targets()) keys.push_back(t.key);
      if (std::find(keys.begin(), keys.end(), require_target) == keys.end()) {
        if (const auto neighbour = qtune::nearest_compatible_target(qtune::current_target(), keys)) {
          std::cerr << "qtune query: nothing was tuned for this process's exact target; checking the nearest "
                       "compatible target ("
                    << neighbour->describe() << ")\n";
          require_target = neighbour->key;
        }
      }
    }
    return required ? require(args, db, require_target, *required) : list(args, db, filter);
  });
}

}  // namespace

QTUNE_COMMAND("query", "list targets, workloads and best configurations; check a network is tuned (CI)",
              "qtune query --db FILE [--op gemm|conv2d|inverted_residual] [--shape TEXT] [--target current|KEY] [--json]\n"
              "       qtune query --db FILE --require WORKLOADS.json [--target current|KEY] [--json]",
              {{"db", true, "FILE  the tuning database (opened read-only)"},
               {"op", true, "OP  only workloads of this operator: gemm, conv2d or inverted_residual (a model's blocks of layers)"},
               {"shape", true, "TEXT  only workloads whose key or description contains TEXT (e.g. m=784)"},
               {"target", true, "KEY  only this target ('current' = this machine); default for --require: current"},
               {"require", true, "FILE  exit 0 when every layer of this workload file is tuned, 1 listing the missing"},
               {"json", false, "print JSON instead of a table"}},
              run_query);
