#include "qtune/bench/bench_cases.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "qtune/kernels/gemm.h"
#include "qtune/measure/number_text.h"
#include "qtune/measure/timing_verdict.h"

namespace qtune::bench {
namespace {

// Collects the time of every repetition (one run of the timed loop each) per benchmark name.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      Entry& e = entries_[run.run_name.function_name];
      if (run.error_occurred) {
        e.error = run.error_message;
      } else {
        e.ns.push_back(run.GetAdjustedRealTime() * to_ns(run.time_unit));
      }
    }
  }
  struct Entry {
    std::vector<double> ns;
    std::string error;
  };
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  static double to_ns(benchmark::TimeUnit unit) {
    switch (unit) {
      case benchmark::kNanosecond: return 1;
      case benchmark::kMicrosecond: return 1e3;
      case benchmark::kMillisecond: return 1e6;
      case benchmark::kSecond: return 1e9;
    }
    return 1;
  }
  std::map<std::string, Entry> entries_;
};

std::string shape_label(const BenchCase& c) {
  std::string s;
  for (const auto& [key, value] : c.shape) s += (s.empty() ? "" : " ") + key + "=" + std::to_string(value);
  return s;
}

}  // namespace

std::vector<BenchCase> peak_cases(const std::vector<Isa>& isas) {
  std::vector<BenchCase> out;
  for (const GemmPeakLoop& peak : gemm_peak_loops()) {
    if (std::find(isas.begin(), isas.end(), peak.isa) == isas.end()) continue;
    constexpr std::size_t kIterations = 1 << 14;
    BenchCase bc;
    bc.op = "peak";
    bc.impl = "peak";
    bc.isa = std::string(to_string(peak.isa));
    bc.variant = bc.isa + " (" + peak.instruction + ", registers only)";
    bc.threads = 1;
    bc.ops = static_cast<double>(run_gemm_peak_loop(peak.isa, 1) * kIterations);
    const Isa isa = peak.isa;
    bc.prepare = [isa]() -> std::function<void()> {
      return [isa] { benchmark::DoNotOptimize(run_gemm_peak_loop(isa, kIterations)); };
    };
    out.push_back(std::move(bc));
  }
  return out;
}

std::vector<BenchResult> run_bench_cases(std::vector<BenchCase> cases, const BenchOptions& options) {
  static const bool initialized = [] {
    // Repetitions of all cases run in a random interleaved order: on a shared machine a slow
    // phase (another tenant, a frequency drop) then hits every case alike instead of whichever
    // case happened to run during it, so ratios measured in one run stay meaningful.
    int argc = 2;
    char name[] = "qtune";
    char interleave[] = "--benchmark_enable_random_interleaving=true";
    char* argv[] = {name, interleave, nullptr};
    benchmark::Initialize(&argc, argv);
    return true;
  }();
  (void)initialized;
  benchmark::ClearRegisteredBenchmarks();
  const CacheState cache = options.cache;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    BenchCase* c = &cases[i];
    auto* bench = benchmark::RegisterBenchmark(("case" + std::to_string(i)).c_str(),
                                               [c, cache](benchmark::State& state) {
                                                 std::function<void()> run;
                                                 try {
                                                   run = c->prepare();
                                                   run();  // warm-up outside the timed loop
                                                 } catch (const std::exception& e) {
                                                   state.SkipWithError(e.what());
                                                   return;
                                                 }
                                                 if (cache == CacheState::cold) {
                                                   for (auto _ : state) state.SetIterationTime(time_one_call(run, cache));
                                                 } else {
                                                   for (auto _ : state) run();
                                                 }
                                               });
    bench->Unit(benchmark::kNanosecond)->Repetitions(options.repetitions)->ReportAggregatesOnly(false);
    if (cache == CacheState::cold) {
      // As the tuner's measurement (measure/src/benchmark_timing.cc): a bounded number of calls,
      // each timed after its eviction, from the fastest of three.
      int calls = 1;
      try {
        const std::function<void()> run = c->prepare();
        double fastest = time_one_call(run, cache);
        for (int k = 0; k < 2; ++k) fastest = std::min(fastest, time_one_call(run, cache));
        calls = calls_per_repetition(fastest, options.min_time, cache);
      } catch (const std::exception&) {
        // The timed run reports the error.
      }
      bench->UseManualTime()->Iterations(calls);
    } else {
      bench->UseRealTime()->MinTime(options.min_time);
    }
  }
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();

  std::vector<BenchResult> results;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    BenchResult r;
    r.bench = cases[i];
    r.bench.prepare = nullptr;
    auto it = reporter.entries().find("case" + std::to_string(i));
    if (it == reporter.entries().end()) {
      r.error = "not run";
    } else if (!it->second.error.empty() || it->second.ns.empty()) {
      r.error = it->second.error.empty() ? "no timing" : it->second.error;
    } else {
      r.samples_ns = it->second.ns;
      r.median_ns = case_timing(it->second.ns).median_ns;
      r.gops = r.bench.ops / r.median_ns;
    }
    results.push_back(std::move(r));
  }
  return results;
}

void print_bench_results(const std::vector<BenchResult>& results, bool json, std::ostream& out) {
  // Each peer library's result per (shape, threads), and the peak of each isa.
  std::vector<std::string> peers;  // in order of appearance: one "vs <peer>" column each
  std::map<std::string, const BenchResult*> peer_results;
  std::map<std::string, double> peak_gops;
  auto group_of = [](const BenchResult& r) { return shape_label(r.bench) + "|" + std::to_string(r.bench.threads); };
  for (const BenchResult& r : results) {
    if (r.bench.impl == "qtune" || r.bench.impl == "peak") continue;
    if (std::find(peers.begin(), peers.end(), r.bench.impl) == peers.end()) peers.push_back(r.bench.impl);
  }
  for (const BenchResult& r : results) {
    if (!r.error.empty()) continue;
    if (r.bench.impl == "peak") {
      peak_gops[r.bench.isa] = r.gops;
    } else if (r.bench.impl != "qtune") {
      peer_results.emplace(r.bench.impl + "|" + group_of(r), &r);
    }
  }
  // The case's result against `peer`'s of the same shape and threads: nullptr when there is none.
  const auto peer_of = [&](const BenchResult& r, const std::string& peer) -> const BenchResult* {
    if (r.bench.impl == "peak" || !r.error.empty()) return nullptr;
    const auto it = peer_results.find(peer + "|" + group_of(r));
    return it == peer_results.end() ? nullptr : it->second;
  };
  // Faster / same / slower than the peer by the rule of every verdict (timing_verdict.h), on the
  // repetitions' times.
  const auto verdict_against = [](const BenchResult& r, const BenchResult& peer) {
    return verdict(case_timing(r.samples_ns), case_timing(peer.samples_ns));
  };
  if (json) {
    for (const BenchResult& r : results) {
      nlohmann::ordered_json j;
      j["op"] = r.bench.op;
      for (const auto& [key, value] : r.bench.shape) j[key] = value;
      j["impl"] = r.bench.impl;
      j["variant"] = r.bench.variant;
      if (!r.bench.isa.empty()) j["isa"] = r.bench.isa;
      j["threads"] = r.bench.threads;
      if (r.error.empty()) {
        j["gops"] = r.gops;
        j["median_ns"] = r.median_ns;
        const CaseTiming timing = case_timing(r.samples_ns);
        j["quartiles_ns"] = {timing.low_ns, timing.high_ns};
        for (const std::string& peer : peers) {
          if (const BenchResult* p = peer_of(r, peer); p && p != &r) j["verdict_vs_" + peer] = verdict_against(r, *p);
        }
      } else {
        j["error"] = r.error;
      }
      out << j.dump() << "\n";
    }
    return;
  }
  const auto name_of = [](const BenchResult& r) {
    return r.bench.impl == "qtune" || r.bench.impl == "peak" ? r.bench.variant
                                                             : r.bench.impl + " (" + r.bench.variant + ")";
  };
  // The variant column fits the longest name (a peer's note on what it leaves out can be long).
  int name_width = 72;
  for (const BenchResult& r : results) name_width = std::max(name_width, static_cast<int>(name_of(r).size()) + 1);
  std::string last_shape;
  for (const BenchResult& r : results) {
    const std::string shape = r.bench.impl == "peak" ? "instruction peak, one core" : r.bench.op + " " + shape_label(r.bench);
    if (shape != last_shape) {
      out << "\n" << shape << "\n";
      out << "  " << std::left << std::setw(name_width) << "variant" << std::right << std::setw(8) << "threads" << std::setw(10)
          << "GOP/s" << std::setw(14) << "median us";
      for (const std::string& peer : peers) out << std::setw(16) << "vs " + peer;
      out << std::setw(10) << "of peak" << "\n";
      last_shape = shape;
    }
    out << "  " << std::left << std::setw(name_width) << name_of(r) << std::right << std::setw(8) << r.bench.threads;
    if (!r.error.empty()) {
      out << "  error: " << r.error << "\n";
      continue;
    }
    out << std::setw(10) << fixed(r.gops, 1) << std::setw(14) << fixed(r.median_ns / 1e3, 1);
    for (const std::string& peer : peers) {
      const BenchResult* p = peer_of(r, peer);
      out << std::setw(16)
          << (p ? fixed(r.gops / p->gops, 2) + (p == &r ? "" : " " + verdict_against(r, *p)) : std::string("-"));
    }
    const auto peak = peak_gops.find(r.bench.isa);
    const bool has_peak = r.bench.impl == "qtune" && peak != peak_gops.end();
    out << std::setw(10) << (has_peak ? fixed(100 * r.gops / (peak->second * r.bench.threads), 0) + "%" : std::string("-"))
        << "\n";
  }
}

}  // namespace qtune::bench
