// `qtune tune`: tune one layer or a network's layers on this CPU into the tuning database.
// Ctrl-C stops after the candidate in flight (everything measured is already committed), prints
// the summary and exits 130; running the same command again continues where it stopped.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "cache_option.h"
#include "cluster_option.h"
#include "cli.h"
#include "model_cli.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/limits.h"
#include "qtune/measure/machine_load.h"
#include "qtune/measure/measure.h"
#include "qtune/records/tuning_db.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/progress_printer.h"
#include "qtune/tuner/session.h"
#include "qtune/tuner/session_summary.h"
#include "qtune/tuner/shard_partition.h"
#include "operator_options.h"
#ifdef QTUNE_HAVE_ONNX
#include "qtune/evaluation/block_tuning.h"
#endif
#include "records_cli.h"

namespace {

using qtune::cli::Args;
using qtune::cli::UsageError;

// Set by SIGINT; the session polls it between candidates.
std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT flag must be async-signal-safe");

extern "C" void on_sigint(int) { g_stop_requested.store(true); }

// Installed before the measurer forks its worker, so the worker inherits it and survives the
// Ctrl-C that reaches the whole process group: the candidate in flight completes normally.
// SA_RESETHAND: a second Ctrl-C kills at once. SA_RESTART: blocking reads resume.
class SigintGuard {
 public:
  SigintGuard() {
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_RESETHAND;
    sigaction(SIGINT, &action, &previous_);
  }
  ~SigintGuard() { sigaction(SIGINT, &previous_, nullptr); }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction previous_ {};
};

std::vector<qtune::Layer> layers_from_args(const Args& args, std::string& network) {
  std::vector<qtune::Layer> layers;
  const auto file = args.value("workloads"), model = args.value("model");
  if (file && model) throw UsageError("give either --workloads FILE or --model FILE, not both");
  if (file || model) {
    for (const char* o : {"workload", "op", "a-type", "out-type", "per-tensor"}) {
      if (args.value(o)) throw UsageError("give either --workloads/--model FILE or one layer (--op ...), not both (--" + std::string(o) + ")");
    }
    if (qtune::cli::operator_shape_given(args)) throw UsageError("give either --workloads FILE or one layer (--op ...), not both");
    qtune::WorkloadFile loaded;
    if (model) {
      loaded = qtune::cli::model_workload_file(*model, args);  // a model that cannot be read: exit 1, its error
    } else {
      try {
        loaded = qtune::load_workload_file(*file);
      } catch (const std::exception& e) {
        throw UsageError(e.what());
      }
    }
    network = loaded.network.empty() ? *(file ? file : model) : loaded.network;
    layers = std::move(loaded.layers);
    // As `qtune run --rounding`: the whole network in one rounding (fp32: oneDNN's math).
    if (args.value("rounding")) {
      const qtune::RoundingMode mode = qtune::cli::quantization_from_options(args).rounding;
      for (auto& layer : layers) layer.workload.quant.rounding = mode;
    }
  } else if (args.value("op") || args.value("workload")) {
    const qtune::Workload w = qtune::cli::workload_from_options(args);
    layers.push_back(qtune::Layer{w.describe(), w, 1});
  } else {
    throw UsageError("nothing to tune: give --workloads FILE, --model FILE or one layer (--op gemm|conv2d and its shape, or --workload KEY)");
  }
  if (layers.empty()) throw UsageError("the workload file has no layers");
  if (args.value("threads")) {
    const int threads = static_cast<int>(args.int_or("threads", 1, 1, qtune::kMaxKernelThreads));
    for (auto& layer : layers) layer.workload.threads = threads;
  }
  return layers;
}

std::string command_line(const Args& args, const std::vector<qtune::cli::OptionSpec>& specs) {
  std::string line = "qtune tune";
  for (const auto& spec : specs) {
    if (!args.flag(spec.name)) continue;
    // append() rather than " --" + name: GCC 12 misreports -Wrestrict on the temporary.
    line.append(" --").append(spec.name);
    if (spec.takes_value) line.append(" ").append(*args.value(spec.name));
  }
  return line;
}

#ifdef QTUNE_HAVE_ONNX
// The blocks' table: what the executor runs of each block beside its layers one by one.
void print_block_summary(std::ostream& out, const std::vector<qtune::evaluation::BlockTuning>& blocks) {
  if (blocks.empty()) return;
  out << "\nblocks of layers (" << blocks.size()
      << "; unfused = the layers one by one, chosen = what the executor runs: fused where that is 5% faster):\n";
  for (const auto& b : blocks) {
    out << "  " << b.name << ": ";
    if (!b.best_ns || !b.unfused_ns) {
      out << "no correct measurement of both (" << b.measured << " measured, " << b.errors << " failed)\n";
      continue;
    }
    char line[160];
    std::snprintf(line, sizeof line, "unfused %.1f us, chosen %.1f us (%.2fx), %s", *b.unfused_ns / 1e3, *b.best_ns / 1e3,
                  *b.unfused_ns / *b.best_ns, b.best_config.substr(0, b.best_config.find('|')).c_str());
    out << line << "\n";
  }
}
#endif

const std::vector<qtune::cli::OptionSpec>& tune_options() {
  static const std::vector<qtune::cli::OptionSpec> options = [] {
    std::vector<qtune::cli::OptionSpec> own = {
      {"db", true, "FILE  the tuning database (created if missing); results are committed as they come"},
      {"workloads", true, "FILE  tune every layer of a network file (workloads/*.json)"},
      {"model", true, "FILE  tune every quantized conv / matmul layer of an ONNX model (as qtune workloads --from-model)"},
      qtune::cli::input_shape_option(),
      {"strategy", true, "S  grid, random or model (default model: cost model + simulated annealing)"},
      {"trials", true, "N  trials per layer, counting those already in the database (default 32)"},
      {"total-trials", true, "N  trials shared by all layers, given where they cut the network's time most"},
      {"time-budget", true, "SECONDS  stop starting new trials after this long"},
      {"early-stop", true, "N  end a layer's search after N trials without a new best"},
      {"threads", true, "T  thread budget of every layer (part of the workload's identity)"},
      {"shard", true, "I/N  tune only shard I (0..N-1) of N: the distinct layers split by operations x trials, the same "
                      "split on every machine (fleet tuning; join the databases with qtune merge)"},
      {"no-blocks", false, "with --model: tune the layers only, not the model's blocks of layers (inverted-residual "
                           "blocks measured one by one and fused at each strip height after the layers)"},
      {"seed", true, "N  seed of the search (default 1)"},
      {"remeasure", false, "measure again configurations the database already has"},
      {"confirm", true, "N  after the search, measure each layer's N leading configurations and the default until each has 3 "
                        "measurements; the best is their median (default 3; 0 = off)"},
      {"no-transfer", false, "model strategy: do not start from similar shapes tuned before"},
      {"model-warmup", true, "N  model strategy: random trials per layer before its cost model is trusted (default 8; "
                             "0 with priors from similar shapes)"},
      {"model-epsilon", true, "P  model strategy: share of each batch spent on random configurations (0 to 1, default 0.1)"},
      {"model-starts", true, "BEST,RANDOM  model strategy: annealing chains from the best measured configurations and "
                             "from random ones (default 4,8)"},
      {"anneal-steps", true, "N  model strategy: moves per annealing chain (default 64)"},
      {"anneal-temperature", true, "START,END  model strategy: annealing temperatures in log-ratio units, cooled "
                                   "geometrically (default 0.3,0.005)"},
      qtune::cli::cache_option(),
      qtune::cli::cluster_option(),
      {"quiet", false, "print only the summary"},
    };
    auto all = qtune::cli::with_operator_options(std::move(own), "tune one layer, instead of --workloads", true);
    for (auto& spec : all) {
      if (spec.name == "rounding") spec.help += "; with --workloads: every layer's, instead of the file's";
    }
    return all;
  }();
  return options;
}

// "A,B" as two real numbers; UsageError naming the option otherwise.
std::pair<double, double> number_pair(const Args& args, const std::string& option) {
  const std::string text = *args.value(option);
  const auto comma = text.find(',');
  const auto number = [&](const std::string& part) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || !std::isfinite(v))
      throw UsageError("option --" + option + ": expected two numbers A,B, got '" + text + "'");
    return v;
  };
  if (comma == std::string::npos) throw UsageError("option --" + option + ": expected two numbers A,B, got '" + text + "'");
  return {number(text.substr(0, comma)), number(text.substr(comma + 1))};
}

// The model strategy's exploration and annealing (tuner/model_strategy.h), where the options give them.
qtune::ModelStrategyOptions model_strategy_options(const Args& args) {
  qtune::ModelStrategyOptions model;
  model.warmup = static_cast<std::size_t>(args.int_or("model-warmup", static_cast<long long>(model.warmup), 0, 1'000'000));
  model.epsilon = args.double_or("model-epsilon", model.epsilon, 0, 1);
  if (const auto starts = args.value("model-starts")) {
    const auto counts = qtune::cli::parse_int_list("model-starts", *starts, ',', 0, 1000);
    if (counts.size() != 2 || counts[0] + counts[1] < 1)
      throw UsageError("option --model-starts: expected two whole numbers from 0 to 1000, not both 0, got '" + *starts +
                       "'");
    model.best_starts = static_cast<std::size_t>(counts[0]);
    model.random_starts = static_cast<std::size_t>(counts[1]);
  }
  model.annealing.steps = static_cast<int>(args.int_or("anneal-steps", model.annealing.steps, 1, 1'000'000));
  if (args.value("anneal-temperature")) {
    const auto [start, end] = number_pair(args, "anneal-temperature");
    if (!(start > 0) || !(end > 0) || end > start)
      throw UsageError("option --anneal-temperature: expected START,END with START >= END > 0, got '" +
                       *args.value("anneal-temperature") + "'");
    model.annealing.start_temperature = start;
    model.annealing.end_temperature = end;
  }
  const bool model_options = args.value("model-warmup") || args.value("model-epsilon") || args.value("model-starts") ||
                             args.value("anneal-steps") || args.value("anneal-temperature");
  if (model_options && args.value_or("strategy", "model") != "model")
    throw UsageError("the --model-* and --anneal-* options apply to --strategy model only");
  return model;
}

int run_tune(const Args& args) {
  const std::string db_path = args.required("db");
  std::string network;
  const std::vector<qtune::Layer> layers = layers_from_args(args, network);

  qtune::SessionOptions options;
  const std::string strategy = args.value_or("strategy", "model");
  const auto kind = qtune::parse_strategy_kind(strategy);
  if (!kind) throw UsageError("option --strategy: expected grid, random or model, got '" + strategy + "'");
  options.strategy = *kind;
  if (args.value("trials")) options.trials_per_layer = static_cast<std::size_t>(args.int_or("trials", 0, 1, 1LL << 40));
  if (args.value("total-trials"))
    options.total_trials = static_cast<std::size_t>(args.int_or("total-trials", 0, 1, 1LL << 40));
  if (args.value("time-budget")) options.time_budget_seconds = args.double_or("time-budget", 0, 1e-3, 1e9);
  if (args.value("early-stop")) options.early_stop = static_cast<std::size_t>(args.int_or("early-stop", 0, 1, 1LL << 40));
  // Without any limit a session would measure whole spaces: default to a per-layer target.
  if (!options.trials_per_layer && !options.total_trials && !options.time_budget_seconds) options.trials_per_layer = 32;
  options.seed = static_cast<std::uint64_t>(args.int_or("seed", 1, 0, (1LL << 62)));
  options.remeasure = args.flag("remeasure");
  options.confirm_top = static_cast<std::size_t>(args.int_or("confirm", 3, 0, 1000));
  options.transfer = !args.flag("no-transfer");
  options.model = model_strategy_options(args);
  options.measure.cache = qtune::cli::cache_from_args(args);
  options.command_line = command_line(args, tune_options());

  // The split is made before the database is opened, from the whole network only, so that every
  // machine of a fleet computes the same one whatever its database holds.
  std::vector<qtune::Layer> to_tune = layers;
  std::string shard_text;
  if (const auto shard_option = args.value("shard")) {
    qtune::ShardSpec shard;
    try {
      shard = qtune::parse_shard_spec(*shard_option);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("option --shard: ") + e.what());
    }
    shard_text = "shard " + *shard_option;
    const double trials = static_cast<double>(options.trials_per_layer.value_or(1));
    to_tune = qtune::shard_layers(layers, shard, trials);
    const std::size_t distinct = qtune::merge_identical_layers(layers).size();
    if (to_tune.empty()) {
      std::cout << shard_text << ": no layers (" << shard.count << " shards for " << distinct
                << " distinct layers); nothing to tune\n";
      return 0;
    }
    if (!args.flag("quiet"))
      std::cerr << shard_text << ": " << to_tune.size() << " of " << distinct << " distinct layers\n";
  }

  return qtune::cli::run_with_data_errors(args, [&] {
    auto db = qtune::cli::open_database(db_path, qtune::records::OpenMode::create);
    const qtune::Target target = qtune::current_target();

    g_stop_requested.store(false);
    SigintGuard sigint;  // before the measurer forks its worker
    // A model's blocks are tuned after its layers (a shard tunes only layers: its machine holds no
    // tuning of the other shards' layers, which the blocks run with).
    const auto model = args.value("model");
    const bool tune_blocks = model && !args.value("shard") && !args.flag("no-blocks");
#ifdef QTUNE_HAVE_ONNX
    if (tune_blocks) qtune::evaluation::register_block_operators();  // before the measurer forks
#endif
    qtune::IsolatedMeasurer measurer;
    qtune::TuningSession session(to_tune, db, measurer, options, target);

    const bool quiet = args.flag("quiet");
    const auto style = quiet ? qtune::ProgressStyle::quiet
                             : (::isatty(STDERR_FILENO) ? qtune::ProgressStyle::terminal : qtune::ProgressStyle::lines);
    qtune::ProgressPrinter printer(std::cerr, style);
    if (!quiet) {
      std::cerr << "target: " << target.cpu << " (" << target.arch << "), database " << db_path << ", strategy "
                << strategy << (network.empty() ? "" : ", network " + network) << "\n";
    }
    const qtune::CpuTimes cpu_before = qtune::sample_cpu_times();
    const qtune::SessionEnd end = session.run(&g_stop_requested, &printer);
    const std::optional<double> others_busy = qtune::others_busy_cores(cpu_before, qtune::sample_cpu_times());

    std::cout << "\n";
    if (!network.empty()) std::cout << "network " << network << ", ";
    if (!shard_text.empty()) std::cout << shard_text << ", ";
    std::cout << "session " << session.session_id().value_or(0) << " (" << qtune::to_string(end) << ") on "
              << target.cpu << ", strategy " << strategy << "\n\n";
    qtune::print_summary(std::cout, session.layers(), options.measure, options.disturbance, others_busy);
#ifdef QTUNE_HAVE_ONNX
    if (tune_blocks && end != qtune::SessionEnd::interrupted) {
      qtune::evaluation::BlockTuningOptions block_options;
      block_options.target_key = target.key();
      block_options.threads = to_tune.front().workload.threads;
      block_options.measure = options.measure;
      block_options.confirm = static_cast<int>(options.confirm_top);
      block_options.session_id = session.session_id();
      block_options.stop = &g_stop_requested;
      block_options.progress = quiet ? nullptr : &std::cerr;
      qtune::onnx_import::ImportOptions import;
      import.input_shapes = qtune::cli::input_shapes(args);
      const auto blocks = qtune::evaluation::tune_model_blocks(
          qtune::onnx_import::read_model_graph(*model, import), db,
          [&](const std::string& workload, const std::string& config, const qtune::MeasureSettings& settings) {
            return measurer.measure_keys(workload, config, settings);
          },
          block_options);
      print_block_summary(std::cout, blocks);
      if (g_stop_requested.load()) return 130;
    }
#endif
    std::cout.flush();
    return end == qtune::SessionEnd::interrupted ? 130 : 0;
  });
}

}  // namespace

QTUNE_COMMAND("tune", "tune layers on this CPU into the tuning database (resumable)",
              std::string("qtune tune --db FILE (--workloads FILE | --model FILE [--input-shape NAME=DIMS] | ") +
                  qtune::cli::kOperatorUsage +
                  ") [--a-type u8|s8] [--out-type s8|u8|s32] [--per-tensor] [--rounding MODE] [--strategy grid|random|model] "
              "[--trials N | --total-trials N] [--time-budget SECONDS] [--early-stop N] [--threads T] [--seed N] "
              "[--shard I/N] [--remeasure] [--confirm N] [--quiet]",
              tune_options(), run_tune);
