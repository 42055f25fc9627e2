// strategy_bench: how many trials each search strategy needs to find a configuration within 5% of
// the best, on real measured spaces.
//
// For every layer of the workload files whose space is small enough, the whole space is measured
// once on this machine (or read from --db, which also keeps what is measured here, so a second run
// only replays). The strategies are then replayed against that ground truth over many seeds, which
// removes timing noise from the comparison and makes it cheap. "model+transfer" is the model-guided
// strategy warm-started from the other layers' tables (leave-one-out), as a session does from the
// database. Every configuration is measured three times (--passes), each pass in a random order, so
// that neither load drift nor one lucky timing decides the best. Prints one row per layer and a
// summary; this is a program, not a unit test.
//
//   strategy_bench [--workloads FILE]... [--db FILE] [--seeds N] [--max-space N] [--tolerance F]
//                  [--batch N] [--passes N] [--layer SUBSTRING]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/build_info.h"
#include "qtune/measure/measure.h"
#include "qtune/measure/number_text.h"
#include "qtune/records/tuning_db.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/measurement_record.h"
#include "qtune/tuner/replay.h"
#include "qtune/tuner/strategy_factory.h"
#include "qtune/tuner/transfer.h"

namespace {

using qtune::fixed;

struct Options {
  std::vector<std::string> workload_files;
  std::optional<std::string> db_path;
  int seeds = 10;
  std::uint64_t max_space = 2000;
  double tolerance = 0.05;
  std::size_t batch = 8;
  std::size_t passes = 3;
  std::string layer_filter;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "strategy_bench: " << message
            << "\nusage: strategy_bench [--workloads FILE]... [--db FILE] [--seeds N] [--max-space N] "
               "[--tolerance F] [--batch N] [--passes N] [--layer SUBSTRING]\n";
  std::exit(2);
}

long long parse_integer(const std::string& option, const std::string& text, long long min) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min) usage_error("--" + option + " expects an integer >= " + std::to_string(min) + ", got '" + text + "'");
  return v;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error("option " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--workloads") {
      o.workload_files.push_back(value());
    } else if (arg == "--db") {
      o.db_path = value();
    } else if (arg == "--seeds") {
      o.seeds = static_cast<int>(parse_integer("seeds", value(), 1));
    } else if (arg == "--max-space") {
      o.max_space = static_cast<std::uint64_t>(parse_integer("max-space", value(), 1));
    } else if (arg == "--tolerance") {
      const std::string text = value();
      char* end = nullptr;
      o.tolerance = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(o.tolerance >= 0 && o.tolerance < 1))
        usage_error("--tolerance expects a fraction in [0, 1), got '" + text + "'");
    } else if (arg == "--batch") {
      o.batch = static_cast<std::size_t>(parse_integer("batch", value(), 1));
    } else if (arg == "--passes") {
      o.passes = static_cast<std::size_t>(parse_integer("passes", value(), 1));
    } else if (arg == "--layer") {
      o.layer_filter = value();
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: strategy_bench [--workloads FILE]... [--db FILE] [--seeds N] [--max-space N] "
                   "[--tolerance F] [--batch N] [--passes N] [--layer SUBSTRING]\n";
      std::exit(0);
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  }
  if (o.workload_files.empty()) {
    if (!std::filesystem::exists("workloads/default.json"))
      usage_error("no --workloads given and workloads/default.json is not in the current directory");
    o.workload_files.push_back("workloads/default.json");
  }
  return o;
}

struct Task {
  qtune::Layer layer;
  qtune::KnobSpace space;
  qtune::MeasuredTable table;
  std::optional<double> default_gops;
};

double median(std::vector<double> v);

// Ground truth: every configuration of the space measured `passes` times, each pass in its own
// random order, and valued at the median of its measurements (a failure in any makes it a
// failure). On a shared machine the load drifts: one pass in canonical order would turn the drift
// into a false structure over the knobs, and one lucky timing would become "the best" and turn the
// 5% goal into a hunt for noise. With --db, measurements are read from and added to the database,
// so a second run only replays.
class GroundTruth {
 public:
  GroundTruth(qtune::records::TuningDb* db, qtune::Measurer& measurer, std::string target_key)
      : db_(db), measurer_(measurer), target_key_(std::move(target_key)) {}
  ~GroundTruth() {
    if (db_ && session_) db_->end_session(*session_, qtune::records::SessionStatus::completed);
  }

  qtune::MeasuredTable measure(const Task& task, std::size_t passes) {
    std::map<std::string, std::vector<std::optional<double>>> samples;
    if (db_) {
      qtune::records::MeasurementFilter filter;
      filter.workload_key = task.layer.workload.key();
      filter.target_key = target_key_;
      for (const auto& record : db_->measurements(filter)) samples[record.config_key].push_back(qtune::stored_gops(record));
    }
    const auto configs = task.space.enumerate();
    std::mt19937_64 rng(1);
    for (std::size_t pass = 1; pass <= passes; ++pass) {
      std::vector<const qtune::Config*> order;
      for (const auto& c : configs) {
        if (samples[c.key()].size() < pass) order.push_back(&c);
      }
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
      run(task, order, samples, ("pass " + std::to_string(pass) + "/" + std::to_string(passes)).c_str());
    }
    return summarize(configs, samples);
  }

 private:
  void run(const Task& task, const std::vector<const qtune::Config*>& configs,
           std::map<std::string, std::vector<std::optional<double>>>& samples, const char* what) {
    std::size_t done = 0;
    for (const qtune::Config* c : configs) {
      const qtune::MeasureResult result = measurer_.measure(task.layer.workload, *c, qtune::MeasureSettings::tuning());
      samples[c->key()].push_back(result.ok() ? std::optional<double>(result.gops) : std::nullopt);
      if (db_) db_->add_measurement(qtune::to_measurement_record(result, session(), target_key_));
      std::fprintf(stderr, "\r  %s %s: %zu/%zu", what, task.layer.name.c_str(), ++done, configs.size());
      std::fflush(stderr);
    }
    if (!configs.empty()) std::fprintf(stderr, "\n");
  }

  // Only the space's own configurations: the database may hold others (other builds).
  static qtune::MeasuredTable summarize(const std::vector<qtune::Config>& configs,
                                        std::map<std::string, std::vector<std::optional<double>>>& samples) {
    qtune::MeasuredTable table;
    for (const auto& c : configs) {
      const auto& s = samples[c.key()];
      std::vector<double> values;
      for (const auto& v : s) {
        if (v) values.push_back(*v);
      }
      table[c.key()] = !s.empty() && values.size() == s.size() ? std::optional<double>(median(values)) : std::nullopt;
    }
    return table;
  }

  std::optional<std::int64_t> session() {
    if (!session_) {
      qtune::records::SessionInfo info;
      info.command_line = "strategy_bench (ground truth: whole spaces)";
      info.strategy = "grid";
      info.target_key = target_key_;
      info.qtune_version = qtune::version();
      session_ = db_->begin_session(info);
    }
    return session_;
  }

  qtune::records::TuningDb* db_;
  qtune::Measurer& measurer_;
  std::string target_key_;
  std::optional<std::int64_t> session_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  const qtune::CpuFeatures& cpu = qtune::cpu_features();
  const qtune::Target target = qtune::current_target();
  const std::string target_key = target.key();

  std::vector<qtune::Layer> layers;
  std::map<std::string, bool> seen;
  try {
    for (const auto& file : options.workload_files) {
      for (auto& layer : qtune::load_workload_file(file).layers) {
        if (!options.layer_filter.empty() && layer.name.find(options.layer_filter) == std::string::npos) continue;
        if (seen.emplace(layer.workload.key(), true).second) layers.push_back(layer);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "strategy_bench: " << e.what() << "\n";
    return 2;
  }

  std::optional<qtune::records::TuningDb> db;
  if (options.db_path)
    db = qtune::records::TuningDb::open(*options.db_path, qtune::records::OpenMode::create,
                                        qtune::runtime::search_space_validators());
  qtune::IsolatedMeasurer measurer;
  GroundTruth truth(db ? &*db : nullptr, measurer, target_key);

  std::cout << "strategy_bench on " << target.cpu << ": trials until a configuration within "
            << fixed(options.tolerance * 100, 0) << "% of the best of the whole space is measured (median over "
            << options.seeds << " seeds, batches of " << options.batch << ")\n\n";
  std::vector<Task> tasks;
  for (const auto& layer : layers) {
    qtune::KnobSpace space = qtune::space_for(layer.workload, cpu);
    if (space.size() > options.max_space) {
      std::cout << "skipped " << layer.name << ": space of " << space.size() << " > --max-space " << options.max_space
                << "\n";
      continue;
    }
    Task task{layer, space, {}, std::nullopt};
    task.table = truth.measure(task, options.passes);
    const auto def = task.table.find(qtune::default_config(layer.workload, cpu).key());
    if (def != task.table.end()) task.default_gops = def->second;
    if (qtune::best_gops(task.table) > 0) tasks.push_back(std::move(task));
  }
  if (tasks.empty()) {
    std::cout << "no layer with a measurable space (raise --max-space?)\n";
    return 1;
  }

  const std::vector<std::string> columns = {"grid", "random", "model", "model+transfer"};
  std::cout << "\n" << std::string(44, ' ') << pad("space", 6) << pad("best", 9) << pad("default", 9);
  for (const auto& c : columns) std::cout << pad(c, 18);
  std::cout << "\n" << std::string(44, ' ') << pad("", 6) << pad("GOP/s", 9) << pad("/best", 9);
  for (std::size_t i = 0; i < columns.size(); ++i) std::cout << pad("median [min-max]", 18);
  std::cout << "\n";

  std::map<std::string, std::vector<double>> ratio_to_random;  // per strategy, per layer
  for (const auto& task : tasks) {
    const std::size_t cap = task.space.size();
    // Leave-one-out transfer: every other layer's table, as a database of earlier sessions.
    std::vector<qtune::PriorMeasurement> priors;
    for (const auto& other : tasks) {
      if (&other == &task || other.layer.workload.op != task.layer.workload.op) continue;
      const qtune::KnobSpace full = qtune::full_space(other.layer.workload.op);
      for (const auto& [key, gops] : other.table) priors.push_back({other.layer.workload, full.parse(key), gops});
    }
    const auto similar = qtune::similar_workloads(task.layer.workload, priors, 4);

    std::map<std::string, double> medians;
    std::string row;
    for (const auto& column : columns) {
      std::vector<double> trials;
      const int runs = column == "grid" ? 1 : options.seeds;  // grid is deterministic
      for (int seed = 1; seed <= runs; ++seed) {
        const auto kind = column == "grid" ? qtune::StrategyKind::grid
                          : column == "random" ? qtune::StrategyKind::random
                                               : qtune::StrategyKind::model;
        auto strategy = qtune::make_strategy(kind, task.space, task.layer.workload,
                                             column == "model+transfer" ? similar : std::vector<qtune::SimilarWorkload>{},
                                             static_cast<std::uint64_t>(seed));
        // Never reaching counts as the whole space (it cannot happen: no strategy repeats).
        trials.push_back(static_cast<double>(
            qtune::trials_to_reach(*strategy, task.table, options.tolerance, options.batch, cap).value_or(cap)));
      }
      medians[column] = median(trials);
      const auto [lo, hi] = std::minmax_element(trials.begin(), trials.end());
      std::string cell = fixed(medians[column], 1) + " [" + fixed(*lo, 0) + "-" + fixed(*hi, 0) + "]";
      if (column == "grid") cell = fixed(medians[column], 0);
      if (column == "model+transfer" && similar.empty()) cell = "-";
      row += pad(cell, 18);
    }
    for (const auto& column : columns) {
      if (column == "model+transfer" && similar.empty()) continue;
      ratio_to_random[column].push_back(medians["random"] / medians[column]);
    }
    const double best = qtune::best_gops(task.table);
    std::string name = task.layer.name + " [" + task.layer.workload.describe() + "]";
    if (name.size() > 43) name = name.substr(0, 40) + "...";
    std::cout << name << std::string(44 - name.size(), ' ') << pad(std::to_string(cap), 6) << pad(fixed(best, 1), 9)
              << pad(task.default_gops ? fixed(*task.default_gops / best, 2) : "fail", 9) << row << "\n";
  }

  std::cout << "\nrandom's median trials / the strategy's (geometric mean over layers; > 1 = fewer trials than random):\n";
  for (const auto& column : columns) {
    const auto& ratios = ratio_to_random[column];
    if (ratios.empty()) continue;
    double log_sum = 0;
    for (double r : ratios) log_sum += std::log(r);
    std::cout << "  " << column << std::string(16 - column.size(), ' ') << fixed(std::exp(log_sum / static_cast<double>(ratios.size())), 2)
              << "x over " << ratios.size() << " layer" << (ratios.size() == 1 ? "" : "s") << "\n";
  }
  return 0;
}
