// qtune's C++ API in an application: tune-free demonstration of per-layer dispatch.
//   gemm_example_cxx <log to write> <file to write the chosen configuration key to>
// 1. Writes a best-config log for THIS machine naming a configuration for the layer (what
//    `qtune tune` + `qtune export` would produce), 2. loads it with qtune::runtime::Runtime,
// 3. prepares the layer (the tuned configuration must be chosen), runs it and compares with
// gemm_reference, 4. prepares an untuned shape and prints the fallback report.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <vector>

#include "layer.h"
#include "qtune/kernels/build_info.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/records/log_format.h"
#include "qtune/records/timestamp.h"
#include "qtune/runtime/runtime.h"
#include "qtune/runtime/workload_of.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"

namespace {

qtune::GemmProblem layer_problem(std::int64_t m) {
  qtune::GemmProblem p;
  p.m = m;
  p.n = LAYER_N;
  p.k = LAYER_K;
  p.a_type = qtune::DType::u8;
  p.a_zero_point = kLayerActivationZeroPoint;
  p.b_zero_points = {0};
  p.out_type = qtune::DType::s8;
  std::vector<double> scales;
  for (int c = 0; c < LAYER_N; ++c) scales.push_back(layer_scale(c));
  p.requant = qtune::RequantParams::make(qtune::RoundingMode::tflite, scales, kLayerOutputZeroPoint, -128, 127);
  return p;
}

// A valid configuration other than the heuristic default, standing in for a tuning result.
qtune::Config pick_config(const qtune::Workload& w) {
  const qtune::Config fallback = qtune::default_config(w, qtune::cpu_features());
  for (const qtune::Config& c : qtune::space_for(w, qtune::cpu_features()).neighbours(fallback)) {
    if (qtune::to_library_config(c)) continue;  // a library (algo=onednn): qtune's own kernels here
    // Not a family that clips weight pairs: over this example's uniform weights the runtime would
    // run the default instead.
    if (qtune::isa_clips_weight_pairs(qtune::to_gemm_config(c).isa)) continue;
    if (qtune::gemm_check_config(w.gemm_problem(), qtune::to_gemm_config(c)).empty()) return c;
  }
  return fallback;
}

bool run_and_check(const qtune::runtime::Runtime& rt, std::int64_t m, std::string* chosen) {
  const qtune::GemmProblem problem = layer_problem(m);
  std::uint32_t state = 12345;
  std::vector<std::uint8_t> a(static_cast<std::size_t>(m * LAYER_K));
  std::vector<std::int8_t> b(LAYER_K * LAYER_N);
  std::vector<std::int32_t> bias(LAYER_N);
  for (auto& v : a) v = static_cast<std::uint8_t>(layer_next(&state));
  for (auto& v : b) v = static_cast<std::int8_t>(layer_next(&state));
  for (auto& v : bias) v = static_cast<std::int32_t>(layer_next(&state) % 2001) - 1000;

  const auto op = rt.prepare_gemm(problem, b.data(), LAYER_N, bias.data(), /*threads=*/1);
  std::vector<std::int8_t> got(static_cast<std::size_t>(m * LAYER_N)), want(got.size());
  op.run(a.data(), LAYER_K, got.data(), LAYER_N);
  qtune::gemm_reference(problem, a.data(), LAYER_K, b.data(), LAYER_N, bias.data(), want.data(), LAYER_N);
  std::cout << "layer M=" << m << ": " << to_string(op.selection().source) << " configuration "
            << op.selection().config_key << "\n";
  if (chosen != nullptr) *chosen = op.selection().config_key;
  if (got != want) {
    std::cerr << "gemm_example_cxx: result differs from gemm_reference for M=" << m << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gemm_example_cxx <log to write> <file for the chosen configuration key>\n";
    return 2;
  }
  try {
    const qtune::Workload workload = qtune::runtime::workload_of(layer_problem(LAYER_M), 1);
    const qtune::Config tuned = pick_config(workload);
    {
      qtune::records::MeasurementRecord r;
      r.workload_key = workload.key();
      r.target_key = qtune::current_target().key();
      r.config_key = tuned.key();
      qtune::records::TimingStats stats;
      stats.median_ns = stats.min_ns = stats.max_ns = stats.mean_ns = 1000;
      stats.repetitions = 1;
      stats.iterations = 1;
      r.stats = stats;
      r.timestamp = qtune::records::utc_now_iso8601();
      r.qtune_version = qtune::version();
      std::ofstream(argv[1]) << qtune::records::to_log_line(r) << "\n";
    }

    const auto rt = qtune::runtime::Runtime::from_file(argv[1]);
    std::string chosen;
    if (!run_and_check(rt, LAYER_M, &chosen)) return 1;
    if (chosen != tuned.key()) {
      std::cerr << "gemm_example_cxx: expected the tuned configuration " << tuned.key() << ", got " << chosen << "\n";
      return 1;
    }
    if (!run_and_check(rt, 2 * LAYER_M, nullptr)) return 1;  // untuned: the nearest tuned shape's configuration
    for (const auto& f : rt.fallbacks()) std::cout << "fell back: " << f.workload_key << ": " << f.reason << "\n";
    if (rt.fallback_count() != 1) {
      std::cerr << "gemm_example_cxx: expected exactly one fallback\n";
      return 1;
    }
    std::ofstream(argv[2]) << chosen;
  } catch (const std::exception& e) {
    std::cerr << "gemm_example_cxx: " << e.what() << "\n";
    return 1;
  }
  std::cout << "gemm_example_cxx: ok\n";
  return 0;
}
