// Standalone requantization throughput (items/s = int32 accumulators requantized per second):
// every compiled variant (ISA x unroll) x rounding mode x per-tensor / per-channel x a few matrix
// sizes, s8 output. Variants this CPU cannot run are reported as skipped.
//
//   requantize_bench --benchmark_filter='tflite/tensor/1024x1024'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/requantize.h"

namespace {

using namespace qtune;

struct Size {
  std::size_t rows, cols;
};
// Fits L1, L2, and beyond L2 (4 MB of accumulators).
constexpr Size kSizes[] = {{16, 256}, {64, 1024}, {1024, 1024}};

void run(benchmark::State& state, RequantizeConfig config, RoundingMode mode, bool per_channel, Size size) {
  if (const std::string problem = requantize_check_config(config); !problem.empty()) {
    state.SkipWithError(problem.c_str());
    return;
  }
  std::mt19937 rng(1);
  std::uniform_int_distribution<std::int32_t> acc_dist(-(1 << 20), 1 << 20);
  std::uniform_real_distribution<double> scale_dist(1e-5, 1e-3);
  std::vector<std::int32_t> acc(size.rows * size.cols);
  for (auto& a : acc) a = acc_dist(rng);
  std::vector<double> scales(per_channel ? size.cols : 1);
  for (auto& s : scales) s = scale_dist(rng);
  const RequantParams params = RequantParams::make(mode, scales, -3, -128, 127);
  std::vector<std::int8_t> out(acc.size());
  for (auto _ : state) {
    requantize(config, params, DType::s8, acc.data(), size.rows, size.cols, size.cols, out.data(), size.cols);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(acc.size()));
}

}  // namespace

int main(int argc, char** argv) {
  for (RoundingMode mode : kAllRoundingModes) {
    for (bool per_channel : {false, true}) {
      for (const Size& size : kSizes) {
        for (const RequantizeConfig& config : requantize_variants()) {
          const std::string name = "requantize/" + std::string(to_string(mode)) + "/" +
                                   (per_channel ? "channel/" : "tensor/") + std::to_string(size.rows) + "x" +
                                   std::to_string(size.cols) + "/" + std::string(to_string(config.isa)) + "_x" +
                                   std::to_string(config.unroll);
          benchmark::RegisterBenchmark(name.c_str(), run, config, mode, per_channel, size);
        }
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
