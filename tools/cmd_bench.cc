// `qtune bench`: every usable variant of one operator and the peer libraries, timed in the same
// process run. The cases and their timing are the bench library's (qtune/bench/); this file parses
// the options into a request, calls it and prints.
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache_option.h"
#include "cli.h"
#include "operator_options.h"
#include "qtune/bench/bench_cases.h"
#include "qtune/bench/conv2d_cases.h"
#include "qtune/bench/gemm_cases.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/limits.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/workload.h"
#if defined(QTUNE_HAVE_ONNX)
#include "qtune/bench/onnxruntime_cases.h"
#endif

namespace qtune::cli {
namespace {

using bench::BenchCase;
using bench::BenchOptions;
using bench::BenchResult;
using bench::GemmShape;

// --isa LIST (each usable here), else every usable vector instruction set (scalar if none).
std::vector<Isa> bench_isas(const Args& args) {
  const CpuFeatures& cpu = cpu_features();
  std::vector<Isa> out;
  if (auto list = args.value("isa")) {
    std::stringstream in(*list);
    std::string name;
    while (std::getline(in, name, ',')) {
      const auto isa = parse_isa(name);
      if (!isa) throw UsageError("--isa: unknown instruction set '" + name + "'");
      if (!cpu.usable(*isa)) throw UsageError("--isa: isa " + name + " is not usable on this CPU");
      out.push_back(*isa);
    }
    return out;
  }
  for (Isa isa : cpu.usable_isas()) {
    if (isa != Isa::scalar) out.push_back(isa);
  }
  if (out.empty()) out.push_back(Isa::scalar);
  return out;
}

std::vector<GemmShape> shapes_from(const Args& args) {
  if (auto set = args.value("shapes")) {
    if (*set != "default") throw UsageError("--shapes must be 'default', got '" + *set + "'");
    if (operator_shape_given(args) || args.value("workload")) throw UsageError("--shapes and --m/--n/--k are exclusive");
    return bench::default_gemm_shapes();
  }
  if (!operator_shape_given(args) && !args.value("workload")) throw UsageError("give --m M --n N --k K, or --shapes default");
  const Workload w = workload_from_options(args, "gemm");
  return {{w.m, w.n, w.k}};
}

// --config KEY[,KEY...]: exactly these configurations (e.g. a tuned best against oneDNN) instead
// of every tile at the default blocking. Their threads knob is replaced by --threads.
std::vector<GemmConfig> configs_from(const Args& args) {
  std::vector<GemmConfig> out;
  const auto list = args.value("config");
  if (!list) return out;
  if (args.value("isa")) throw UsageError("--config and --isa are exclusive");
  const KnobSpace space = full_space(OpKind::gemm);
  std::stringstream in(*list);
  std::string key;
  while (std::getline(in, key, ',')) {
    try {
      out.push_back(to_gemm_config(space.parse(key)));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--config '" + key + "': " + e.what());
    }
    if (!cpu_features().usable(out.back().isa))
      throw UsageError("--config '" + key + "': isa " + std::string(to_string(out.back().isa)) + " is not usable on this CPU");
  }
  if (out.empty()) throw UsageError("--config is empty");
  return out;
}

// The layer's shape and name: a layer of a network table (--layer FILE:NAME), else the operator
// options every command shares (operator_options.h).
Workload workload_from(const Args& args, std::string& label) {
  if (auto layer = args.value("layer")) {
    if (args.value("workload") || operator_shape_given(args))
      throw UsageError("give exactly one of --layer FILE:NAME, --workload KEY or the shape (--input/--out-c/...)");
    const auto colon = layer->rfind(':');
    if (colon == std::string::npos) throw UsageError("--layer expects FILE:NAME, got '" + *layer + "'");
    const std::string file = layer->substr(0, colon), name = layer->substr(colon + 1);
    WorkloadFile table;
    try {
      table = load_workload_file(file);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--layer: ") + e.what());
    }
    for (const Layer& l : table.layers) {
      if (l.name != name) continue;
      if (l.workload.op != OpKind::conv2d) throw UsageError("--layer: '" + name + "' is a gemm layer; use --op gemm");
      label = table.network + "/" + name;
      return l.workload;
    }
    throw UsageError("--layer: no layer named '" + name + "' in " + file);
  }
  const Workload w = workload_from_options(args, "conv2d");
  label = w.describe();
  return w;
}


BenchOptions bench_options_from(const Args& args) {
  BenchOptions o;
  o.min_time = args.double_or("min-time", 0.1, 0.001, 60);
  o.repetitions = static_cast<int>(args.int_or("repetitions", 5, 1, 100));
  o.cache = cache_from_args(args);
  return o;
}

// --threads LIST: the thread counts to time, e.g. "1,2" (default 1).
std::vector<int> bench_thread_counts(const Args& args) {
  std::vector<int> counts;
  for (std::int64_t t : parse_int_list("threads", args.value_or("threads", "1"), ',', 1, kMaxKernelThreads))
    counts.push_back(static_cast<int>(t));
  return counts;
}

// --out s8|s32.
DType bench_out_type(const Args& args) {
  const std::string out_name = args.value_or("out", "s8");
  if (out_name != "s8" && out_name != "s32") throw UsageError("--out must be s8 or s32, got '" + out_name + "'");
  return out_name == "s8" ? DType::s8 : DType::s32;
}

WeightDistribution bench_weights(const Args& args) {
  const std::string name = args.value_or("weights", "trained");
  const auto weights = parse_weight_distribution(name);
  if (!weights) throw UsageError("--weights must be trained or uniform, got '" + name + "'");
  return *weights;
}

// Times the cases, with onnxruntime's rounds between their repetitions where this qtune reads
// models, and prints them.
template <class Request>
int time_and_print(std::vector<BenchCase> cases, const Request& request, const Args& args, const std::string& label) {
  if (!args.flag("json")) {
    std::cerr << "qtune bench: " << label << cases.size() << " cases, " << args.value_or("repetitions", "5")
              << " repetitions each" << (cases.size() > 40 ? " (this takes a while)" : "") << "\n";
  }
#if defined(QTUNE_HAVE_ONNX)
  const std::vector<BenchResult> results = bench::run_bench_cases_with_onnxruntime(
      std::move(cases), bench_options_from(args), bench::onnxruntime_layers(request), request.threads);
#else
  (void)request;
  const std::vector<BenchResult> results = bench::run_bench_cases(std::move(cases), bench_options_from(args));
#endif
  bench::print_bench_results(results, args.flag("json"), std::cout);
  return 0;
}

int bench_gemm(const Args& args) {
  bench::GemmBenchRequest request;
  request.shapes = shapes_from(args);
  request.threads = bench_thread_counts(args);
  request.isas = bench_isas(args);
  request.out_type = bench_out_type(args);
  request.weights = bench_weights(args);
  request.configs = configs_from(args);
  std::vector<BenchCase> cases;
  try {
    cases = bench::gemm_bench_cases(request);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--config: ") + e.what());
  }
  return time_and_print(std::move(cases), request, args, "");
}

int bench_conv2d(const Args& args) {
  bench::Conv2dBenchRequest request;
  std::string label;
  request.workload = workload_from(args, label);
  request.threads = bench_thread_counts(args);
  request.isas = bench_isas(args);
  request.out_type = bench_out_type(args);
  request.weights = bench_weights(args);
  return time_and_print(bench::conv2d_bench_cases(request), request, args, label + ": ");
}

int run_bench(const Args& args) {
  // Without --op, a --workload key says which operator it is.
  const std::string op = args.value("op") || !args.value("workload")
                             ? args.value_or("op", "gemm")
                             : std::string(to_string(workload_from_options(args).op));
  if (op == "gemm") return bench_gemm(args);
  if (op == "conv2d") return bench_conv2d(args);
  throw UsageError("--op must be gemm or conv2d, got '" + op + "'");
}

}  // namespace
}  // namespace qtune::cli

QTUNE_COMMAND(
    "bench", "time every usable variant of an operator shape and the peer libraries in one run",
    std::string("qtune bench [--op gemm] (--m M --n N --k K | --workload KEY | --shapes default) [--threads 1,2] [--json]\n"
                "       qtune bench --op conv2d (--input N,H,W,C --out-c K [--kernel KHxKW] [--stride S|SHxSW] "
                "[--pad P|T,B,L,R] [--dilation D|DHxDW] [--groups G]\n"
                "                               | --layer FILE:NAME | --workload KEY) [--threads 1,2] [--json]"),
    qtune::cli::with_operator_options(
        {
            {"shapes", true, "SET  'default': the issue's shapes (GEMM: 5625x192x720 256x256x256 1024x1024x1024 3136x144x24 784x128x1152)"},
            {"layer", true, "FILE:NAME  conv2d layer of a network table, e.g. workloads/resnet50.json:layer2.0.conv2"},
            {"threads", true, "LIST  thread counts, e.g. 1,2 (default 1)"},
            {"config", true, "KEY[,KEY...]  GEMM: time exactly these configurations (e.g. tuned ones) instead of every tile"},
            {"isa", true, "LIST  instruction sets to measure (default: every usable vector ISA; add scalar explicitly)"},
            {"out", true, "TYPE  s8 (default: requantized with one fp32 scale, the peers' math) or s32"},
            {"weights", true, "trained|uniform  qtune's weights: trained (default), per channel mostly small with the "
                              "largest at 127, as quantized trained networks have them; uniform, every int8 value "
                              "equally likely (the speed of avx2ubsw and avx512ubsw depends on it)"},
            {"json", false, "one JSON object per line instead of the table"},
            {"min-time", true, "S  minimum seconds per repetition (default 0.1)"},
            {"repetitions", true, "N  timed repetitions, interleaved at random with the other cases' (default 5); the median is reported"},
            qtune::cli::cache_option(),
        },
        "default gemm", false),
    qtune::cli::run_bench);
