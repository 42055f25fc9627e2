#include "benchmark_timing.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/cache_state.h"

namespace qtune::detail {
namespace {

// Collects the per-repetition runs instead of printing them.
class CollectingReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) {
        error = run.error_message.empty() ? "the benchmark run failed" : run.error_message;
        continue;
      }
      if (run.run_type != Run::RT_Iteration || run.iterations <= 0) continue;
      seconds_per_run.push_back(run.real_accumulated_time / static_cast<double>(run.iterations));
      iterations = run.iterations;
    }
  }
  std::vector<double> seconds_per_run;
  std::int64_t iterations = 0;
  std::string error;
};

// Writing a buffer twice the last-level cache evicts the kernel's data and weights.
void flush_caches() {
  static std::vector<char> buffer = [] {
    const std::int64_t l3 = cpu_features().l3_bytes;
    return std::vector<char>(static_cast<std::size_t>(std::max<std::int64_t>(2 * l3, 64 << 20)));
  }();
  static char value = 0;
  ++value;
  for (std::size_t i = 0; i < buffer.size(); i += 64) buffer[i] = value;
  benchmark::DoNotOptimize(buffer.data());
  benchmark::ClobberMemory();
}

}  // namespace

MeasureStats time_with_benchmark(const std::function<void()>& run, const MeasureSettings& settings) {
  // Google Benchmark's registry is global: one measurement at a time.
  static std::mutex mutex;
  static std::atomic<unsigned> counter{0};
  std::lock_guard<std::mutex> lock(mutex);
  const std::string name = "qtune_measure_" + std::to_string(counter++);
  int cold_calls = 1;
  if (settings.cache == CacheState::cold) {
    // The engine warms up only benchmarks whose iteration count it picks: warm up here.
    const auto warm_until = std::chrono::steady_clock::now() + std::chrono::duration<double>(settings.warmup_seconds);
    while (std::chrono::steady_clock::now() < warm_until) run();
    double fastest = time_one_call(run, CacheState::cold);
    for (int i = 0; i < 2; ++i) fastest = std::min(fastest, time_one_call(run, CacheState::cold));
    cold_calls = calls_per_repetition(fastest, settings.min_repetition_seconds, CacheState::cold);
  }
  std::string failure;
  auto* bench = benchmark::RegisterBenchmark(name.c_str(), [&](benchmark::State& state) {
    // Everything before the loop is outside the timed region.
    if (settings.flush_cache) flush_caches();
    try {
      if (settings.cache == CacheState::cold) {
        for (auto _ : state) state.SetIterationTime(time_one_call(run, CacheState::cold));
      } else {
        for (auto _ : state) run();
      }
    } catch (const std::exception& e) {
      failure = e.what();
      state.SkipWithError(failure.c_str());
    }
  });
  // Real time: multi-threaded kernels must not be measured by the calling thread's CPU time.
  bench->Repetitions(settings.repetitions)->Unit(benchmark::kSecond);
  if (settings.cache == CacheState::cold) {
    // Each call is timed on its own, the eviction before it is not; a fixed number of calls per
    // repetition (calls_per_repetition) bounds the evictions a short kernel would otherwise need.
    bench->UseManualTime()->Iterations(cold_calls);
  } else {
    bench->UseRealTime();
    if (settings.min_repetition_seconds > 0) bench->MinTime(settings.min_repetition_seconds);
  }
  if (settings.cache == CacheState::warm && settings.warmup_seconds > 0) bench->MinWarmUpTime(settings.warmup_seconds);
  CollectingReporter reporter;
  // The run name carries attribute suffixes ("/min_time:0.010/repeats:3/real_time").
  benchmark::RunSpecifiedBenchmarks(&reporter, "^" + name + "(/|$)");
  benchmark::ClearRegisteredBenchmarks();
  if (!failure.empty()) throw std::runtime_error(failure);
  if (!reporter.error.empty()) throw std::runtime_error(reporter.error);
  if (reporter.seconds_per_run.empty()) throw std::runtime_error("Google Benchmark reported no repetition");
  return MeasureStats::from_samples(reporter.seconds_per_run, reporter.iterations);
}

}  // namespace qtune::detail
