// `qtune bench --op gemm`: every usable GEMM variant (each microkernel x fused/separate
// requantization x packed/in-place A, at the default cache blocking for the shape adapted to the
// tile), oneDNN's int8 matmul, XNNPACK and onnxruntime's QLinearMatMul (without the bias, which it
// does not have: bench_onnxruntime.h), per shape and thread count, in one run.
//
// Both sides compute the same thing: u8 activations x s8 weights, int32 accumulation, and for s8
// outputs one fp32 output scale per tensor (RoundingMode::fp32 is exactly oneDNN's output-scale
// math); qtune additionally carries an activation zero point, which costs nothing at run time
// (it is folded into the packed per-column terms).
#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <span>
#include <sstream>

#include "bench_common.h"
#include "bench_ops.h"
#include "operator_options.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/operator_spaces.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "peers/onednn_matmul.h"
#endif
#if defined(QTUNE_HAVE_XNNPACK)
#include "peers/xnnpack_fully_connected.h"
#endif
#if defined(QTUNE_HAVE_ONNX)
#include "bench_onnxruntime.h"
#endif

namespace qtune::cli {
namespace {

struct GemmShape {
  std::int64_t m, n, k;
};

std::vector<GemmShape> shapes_from(const Args& args) {
  if (auto set = args.value("shapes")) {
    if (*set != "default") throw UsageError("--shapes must be 'default', got '" + *set + "'");
    if (operator_shape_given(args) || args.value("workload")) throw UsageError("--shapes and --m/--n/--k are exclusive");
    return {{5625, 192, 720}, {256, 256, 256}, {1024, 1024, 1024}, {3136, 144, 24}, {784, 128, 1152}};
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

GemmProblem bench_problem(const GemmShape& s, DType out_type) {
  GemmProblem p;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.a_type = DType::u8;
  p.a_zero_point = 3;
  p.out_type = out_type;
  if (out_type != DType::s32) p.requant = RequantParams::make(RoundingMode::fp32, {0.0005}, 0, -128, 127);
  return p;
}

// The untuned default of the shape as the tuner sees it (snapped into the search space), so that
// every key the table prints parses back (--config, qtune measure) to the same configuration.
GemmConfig default_blocking(const GemmShape& s) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = s.m;
  w.n = s.n;
  w.k = s.k;
  return to_gemm_config(default_config(w, cpu_features()));
}

// The default blocking of the shape, adapted to the tile (kc a multiple of kr; the driver rounds
// mc and nc to whole tiles).
GemmConfig variant_config(const GemmConfig& base, const GemmMicrokernelInfo& uk, bool pack_a, bool fuse, int threads) {
  GemmConfig c = base;
  c.isa = uk.isa;
  c.mr = uk.mr;
  c.nr = uk.nr;
  c.kc = base.kc == 0 ? 0 : std::max(uk.kr, base.kc / uk.kr * uk.kr);
  c.pack_a = pack_a;
  c.fuse_requant = fuse;
  c.threads = threads;
  return c;
}

// The shape's fields of a case of `impl`.
BenchCase base_case(const GemmShape& s, const std::string& impl, int threads) {
  BenchCase bc;
  bc.op = "gemm";
  bc.shape = {{"m", s.m}, {"n", s.n}, {"k", s.k}};
  bc.impl = impl;
  bc.threads = threads;
  bc.ops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  return bc;
}

BenchCase qtune_case(const GemmShape& s, const GemmProblem& p, const GemmConfig& c) {
  BenchCase bc = base_case(s, "qtune", c.threads);
  bc.variant = from_gemm_config(c).key();
  bc.isa = std::string(to_string(c.isa));
  bc.prepare = [s, p, c]() -> std::function<void()> {
    struct State {
      std::vector<std::uint8_t> a, c;
      std::unique_ptr<GemmOp> op;
    };
    auto st = std::make_shared<State>();
    std::mt19937 rng(1);
    st->a.resize(static_cast<std::size_t>(s.m * s.k));
    for (auto& v : st->a) v = static_cast<std::uint8_t>(rng());
    std::vector<std::int8_t> b(static_cast<std::size_t>(s.k * s.n));
    for (auto& v : b) v = static_cast<std::int8_t>(rng());
    std::vector<std::int32_t> bias(static_cast<std::size_t>(s.n), 100);
    st->c.resize(static_cast<std::size_t>(s.m * s.n) * (p.out_type == DType::s32 ? 4 : 1));
    st->op = std::make_unique<GemmOp>(GemmOp::prepare(p, c, b.data(), static_cast<std::size_t>(s.n), bias.data()));
    return [st, s] {
      st->op->run(st->a.data(), static_cast<std::size_t>(s.k), st->c.data(), static_cast<std::size_t>(s.n));
    };
  };
  return bc;
}

#if defined(QTUNE_HAVE_ONEDNN)
BenchCase onednn_case(const GemmShape& s, DType out_type, int threads) {
  BenchCase bc = base_case(s, "onednn", threads);
  // The implementation name is only known once the primitive exists: create it once here.
  bc.variant = peers::OnednnMatmul(1, 1, 1, out_type, 1).implementation();
  bc.prepare = [s, out_type, threads]() -> std::function<void()> {
    auto peer = std::make_shared<peers::OnednnMatmul>(s.m, s.n, s.k, out_type, threads);
    return [peer] { peer->run(); };
  };
  return bc;
}
#endif

#if defined(QTUNE_HAVE_XNNPACK)
BenchCase xnnpack_case(const GemmShape& s, int threads) {
  BenchCase bc = base_case(s, "xnnpack", threads);
  bc.variant = peers::XnnpackFullyConnected::implementation();
  bc.prepare = [s, threads]() -> std::function<void()> {
    auto peer = std::make_shared<peers::XnnpackFullyConnected>(s.m, s.n, s.k, threads);
    return [peer] { peer->run(); };
  };
  return bc;
}
#endif

}  // namespace

int bench_gemm(const Args& args) {
  const std::vector<GemmShape> shapes = shapes_from(args);
  const std::vector<int> threads = bench_thread_counts(args);
  const std::vector<Isa> isas = bench_isas(args);
  const std::string out_name = args.value_or("out", "s8");
  if (out_name != "s8" && out_name != "s32") throw UsageError("--out must be s8 or s32, got '" + out_name + "'");
  const DType out_type = out_name == "s8" ? DType::s8 : DType::s32;

  const std::vector<GemmConfig> configs = configs_from(args);

  std::vector<Isa> measured_isas = configs.empty() ? isas : std::vector<Isa>{};
  for (const GemmConfig& c : configs) measured_isas.push_back(c.isa);
  std::vector<BenchCase> cases = peak_cases(measured_isas);
#if defined(QTUNE_HAVE_ONNX)
  std::vector<OnnxRuntimeBenchLayer> onnx_layers;
#endif
  for (const GemmShape& s : shapes) {
    const GemmProblem problem = bench_problem(s, out_type);
#if defined(QTUNE_HAVE_ONNX)
    {
      // The same problem as a one-node ONNX model (weights drawn as qtune_case draws them).
      std::mt19937 rng(2);
      std::vector<std::int8_t> b(static_cast<std::size_t>(s.k * s.n));
      for (auto& v : b) v = static_cast<std::int8_t>(rng());
      const std::vector<std::int32_t> bias(static_cast<std::size_t>(s.n), 100);
      onnx_layers.push_back({onnx_import::gemm_layer_model(problem, b, bias), base_case(s, "", 1)});
    }
#endif
    const GemmConfig base = default_blocking(s);
    for (int t : threads) {
      if (!configs.empty()) {
        for (GemmConfig c : configs) {
          c.threads = t;
          const std::string why = gemm_check_config(problem, c);
          if (!why.empty()) throw UsageError("--config " + from_gemm_config(c).key() + ": " + why);
          cases.push_back(qtune_case(s, problem, c));
        }
      }
      for (const GemmMicrokernelInfo& uk : configs.empty() ? gemm_microkernels() : std::span<const GemmMicrokernelInfo>{}) {
        if (std::find(isas.begin(), isas.end(), uk.isa) == isas.end()) continue;
        for (bool pack_a : {true, false}) {
          for (bool fuse : {true, false}) {
            if (out_type == DType::s32 && !fuse) continue;  // nothing to fuse
            const GemmConfig c = variant_config(base, uk, pack_a, fuse, t);
            if (gemm_check_config(problem, c).empty()) cases.push_back(qtune_case(s, problem, c));
          }
        }
      }
#if defined(QTUNE_HAVE_ONEDNN)
      cases.push_back(onednn_case(s, out_type, t));
#endif
#if defined(QTUNE_HAVE_XNNPACK)
      if (out_type == DType::s8) cases.push_back(xnnpack_case(s, t));  // XNNPACK has no int32-output operator
#endif
    }
  }
  if (!args.flag("json")) {
    std::cerr << "qtune bench: " << cases.size() << " cases, " << args.value_or("repetitions", "5")
              << " repetitions each" << (cases.size() > 40 ? " (this takes a while)" : "") << "\n";
  }
#if defined(QTUNE_HAVE_ONNX)
  const std::vector<BenchResult> results =
      run_bench_cases_with_onnxruntime(std::move(cases), bench_options_from(args), onnx_layers, threads);
#else
  const std::vector<BenchResult> results = run_bench_cases(std::move(cases), bench_options_from(args));
#endif
  print_bench_results(results, args.flag("json"), std::cout);
  return 0;
}

}  // namespace qtune::cli
