// The cases of `qtune bench` and how they are timed: each operator family builds a list of cases
// (qtune variants and peers, prepared lazily: gemm_cases.h, conv2d_cases.h), run_bench_cases()
// times them all in the same process run on Google Benchmark's engine (benchmark::RegisterBenchmark and a reporter that collects every repetition's time), and
// print_bench_results() prints a table with the ratio to the peer and its verdict (faster / same /
// slower, qtune/measure/timing_verdict.h), or one JSON object per line:
//   {"op":"gemm","m":..,"n":..,"k":..,"impl":"qtune"|"onednn","variant":"<key>","threads":..,
//    "gops":..,"median_ns":..,"quartiles_ns":[..,..],"verdict_vs_onednn":"faster"|"same"|"slower"|"-"}
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "qtune/kernels/isa.h"
#include "qtune/measure/cache_state.h"

namespace qtune::bench {

struct BenchCase {
  std::string op;                                          // "gemm", "conv2d"
  std::vector<std::pair<std::string, std::int64_t>> shape;  // JSON fields in order: {"m", 784}, ...
  std::string impl;                                        // "qtune" or a peer: "onednn"
  std::string variant;                                     // qtune: the config key; peers: implementation
  std::string isa;                                         // qtune and peak cases: the instruction set
  int threads = 1;
  double ops = 0;  // operations of one run (2 * MACs), for GOP/s
  // Prepares the case (packing, peer primitive creation) and returns one execution; called before
  // each repetition (repetitions of all cases are interleaved), so that only one case holds its
  // buffers at a time.
  std::function<std::function<void()>()> prepare;
};

struct BenchOptions {
  double min_time = 0.1;  // seconds per repetition (the engine picks the iteration count)
  int repetitions = 5;    // timed repetitions, interleaved with other cases'; the median is reported
  CacheState cache = CacheState::warm;  // cold: each call timed after an eviction (cache_state.h)
};

struct BenchResult {
  BenchCase bench;       // `prepare` is cleared
  double median_ns = 0;  // median over repetitions of the time of one run
  double gops = 0;       // ops / median_ns
  std::vector<double> samples_ns;  // the time of one run in each repetition
  std::string error;     // non-empty if the case failed (prepare or run threw)
};

// One case per instruction set in `isas` that has a peak loop (run_gemm_peak_loop): the ceiling
// of its dot-product instruction on one core, measured in the same run as the kernels so that the
// table can give each variant's share of it. op and impl are "peak".
std::vector<BenchCase> peak_cases(const std::vector<Isa>& isas);

// Times every case in order; a case that throws is reported with its error, the others still run.
std::vector<BenchResult> run_bench_cases(std::vector<BenchCase> cases, const BenchOptions& options);

// A table (variant, threads, GOP/s, median time, ratio to the peer of the same shape and thread
// count with its verdict, share of the variant's instruction peak times its threads), or with json one object per
// line.
void print_bench_results(const std::vector<BenchResult>& results, bool json, std::ostream& out);

}  // namespace qtune::bench
