// `qtune measure`: check and time one configuration of one workload on this CPU.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cache_option.h"
#include "cluster_option.h"
#include "cli.h"
#include "operator_options.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/measure.h"
#include "qtune/measure/number_text.h"
#include "qtune/search_space/operator_spaces.h"

namespace {

using qtune::cli::Args;
using qtune::cli::UsageError;

std::string format_seconds(double seconds) { return qtune::format_time_ns(seconds * 1e9); }

int run_measure(const Args& args) {
  const qtune::Workload workload = qtune::cli::workload_from_options(args);
  const std::string workload_key = workload.key();
  std::string config_key = args.required("config");
  qtune::MeasureSettings settings = args.flag("stable") ? qtune::MeasureSettings::stable() : qtune::MeasureSettings::tuning();
  settings.repetitions = static_cast<int>(args.int_or("repetitions", settings.repetitions, 1, 100000));
  settings.min_repetition_seconds = args.double_or("min-time", settings.min_repetition_seconds, 1e-6, 3600);
  settings.warmup_seconds = args.double_or("warmup", settings.warmup_seconds, 0, 3600);
  settings.timeout_seconds = args.double_or("timeout", settings.timeout_seconds, 1e-3, 86400);
  settings.pin_cpu = static_cast<int>(args.int_or("pin-cpu", settings.pin_cpu, -1, 4095));
  settings.seed = static_cast<std::uint64_t>(args.int_or("seed", 1, 0, 1LL << 62));
  if (args.flag("flush-cache")) settings.flush_cache = true;
  settings.cache = qtune::cli::cache_from_args(args);
  if (args.flag("no-check")) settings.check_correctness = false;

  if (config_key == "default") config_key = qtune::default_config(workload, qtune::cpu_features()).key();
  qtune::MeasureResult result;
  // The configuration is the user's text: measured through the entry points for keys, which check
  // and parse it as they do the worker's request.
  if (args.flag("in-process")) {
    result = qtune::measure_keys_in_process(workload_key, config_key, settings);
  } else {
    qtune::IsolatedMeasurer measurer;
    result = measurer.measure_keys(workload_key, config_key, settings);
  }
  if (args.flag("json")) {
    std::cout << qtune::to_json(result).dump(2) << "\n";
    return result.ok() ? 0 : 1;
  }
  std::cout << "workload: " << workload.describe() << "\nconfig:   " << config_key << "\n";
  if (!result.ok()) {
    std::cout << "error:    " << qtune::to_string(result.error) << ": " << result.error_message << "\n";
    return 1;
  }
  const auto& s = result.stats;
  char line[256];
  std::snprintf(line, sizeof line, "%.1f GOPS", result.gops);
  std::cout << "correct:  " << (settings.check_correctness ? "bit-exact with the reference" : "not checked") << "\n"
            << "time:     median " << format_seconds(s.median) << " (min " << format_seconds(s.min) << ", max "
            << format_seconds(s.max) << ", cv " << s.cv * 100 << "%) over " << s.repetitions << " repetitions of "
            << s.iterations << " runs\n"
            << "speed:    " << line << "\n"
            << "measured in " << format_seconds(result.wall_seconds) << " by process " << result.worker_pid << "\n";
  return 0;
}

}  // namespace

QTUNE_COMMAND("measure", "check one configuration against the reference and time it on this CPU",
              std::string("qtune measure (") + qtune::cli::kOperatorUsage +
                  ") --config KEY|default [--repetitions N] [--stable] [--json]",
              qtune::cli::with_operator_options(
                  {{"config", true, "KEY  configuration key, or 'default' for the untuned default"},
                   {"repetitions", true, "N  timed repetitions (tuning default 3)"},
                   {"min-time", true, "SECONDS  minimum time per repetition (tuning default 0.01)"},
                   {"warmup", true, "SECONDS  warm-up before timing (tuning default 0.01)"},
                   {"timeout", true, "SECONDS  time limit of the isolated worker (tuning default 30)"},
                   {"pin-cpu", true, "CPU  pin the measuring thread to this CPU"},
                   {"seed", true, "N  seed of inputs and quantization parameters (default 1)"},
                   {"stable", false, "use the stable (final/benchmark) settings instead of the tuning ones"},
                   {"flush-cache", false, "flush the caches before each repetition"},
                   qtune::cli::cache_option(),
                   qtune::cli::cluster_option(),
                   {"no-check", false, "skip the correctness check"},
                   {"in-process", false, "measure in this process instead of an isolated worker"},
                   {"json", false, "print the result as JSON"}},
                  "or --workload KEY", true),
              run_measure);
