// The cases of `qtune bench --op gemm`: every usable GEMM variant (each microkernel x fused/separate
// requantization x packed/in-place A, at the default cache blocking for the shape adapted to the
// tile), oneDNN's int8 matmul, XNNPACK and onnxruntime's QLinearMatMul (without the bias, which it
// does not have: onnxruntime_cases.h), per shape and thread count, in one run.
//
// Both sides compute the same thing: u8 activations x s8 weights, int32 accumulation, and for s8
// outputs one fp32 output scale per tensor (RoundingMode::fp32 is exactly oneDNN's output-scale
// math); qtune additionally carries an activation zero point, which costs nothing at run time
// (it is folded into the packed per-column terms).
#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>

#include "qtune/bench/gemm_cases.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/operator_spaces.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "qtune/libraries/onednn_matmul_peer.h"
#endif
#if defined(QTUNE_HAVE_XNNPACK)
#include "peers/xnnpack_fully_connected.h"
#endif

namespace qtune::bench {

GemmProblem gemm_bench_problem(const GemmShape& s, DType out_type) {
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

namespace {

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

}  // namespace

BenchCase gemm_shape_case(const GemmShape& s, const std::string& impl, int threads) {
  BenchCase bc;
  bc.op = "gemm";
  bc.shape = {{"m", s.m}, {"n", s.n}, {"k", s.k}};
  bc.impl = impl;
  bc.threads = threads;
  bc.ops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  return bc;
}

namespace {

BenchCase qtune_case(const GemmShape& s, const GemmProblem& p, const GemmConfig& c, WeightDistribution weights) {
  BenchCase bc = gemm_shape_case(s, "qtune", c.threads);
  bc.variant = from_gemm_config(c).key();
  bc.isa = std::string(to_string(c.isa));
  bc.prepare = [s, p, c, weights]() -> std::function<void()> {
    struct State {
      std::vector<std::uint8_t> a, c;
      std::unique_ptr<GemmOp> op;
    };
    auto st = std::make_shared<State>();
    std::mt19937 rng(1);
    st->a.resize(static_cast<std::size_t>(s.m * s.k));
    for (auto& v : st->a) v = static_cast<std::uint8_t>(rng());
    std::mt19937_64 weight_rng(2);
    const std::vector<std::int8_t> b =
        draw_weights(weights, static_cast<std::size_t>(s.k * s.n), static_cast<std::size_t>(s.n), weight_rng);
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
  BenchCase bc = gemm_shape_case(s, "onednn", threads);
  // The implementation name is only known once the primitive exists: create it once here.
  bc.variant = libraries::OnednnMatmul(1, 1, 1, out_type, 1).implementation();
  bc.prepare = [s, out_type, threads]() -> std::function<void()> {
    auto peer = std::make_shared<libraries::OnednnMatmul>(s.m, s.n, s.k, out_type, threads);
    return [peer] { peer->run(); };
  };
  return bc;
}
#endif

#if defined(QTUNE_HAVE_XNNPACK)
BenchCase xnnpack_case(const GemmShape& s, int threads) {
  BenchCase bc = gemm_shape_case(s, "xnnpack", threads);
  bc.variant = peers::XnnpackFullyConnected::implementation();
  bc.prepare = [s, threads]() -> std::function<void()> {
    auto peer = std::make_shared<peers::XnnpackFullyConnected>(s.m, s.n, s.k, threads);
    return [peer] { peer->run(); };
  };
  return bc;
}
#endif

}  // namespace

std::vector<GemmShape> default_gemm_shapes() {
  return {{5625, 192, 720}, {256, 256, 256}, {1024, 1024, 1024}, {3136, 144, 24}, {784, 128, 1152}};
}

std::vector<BenchCase> gemm_bench_cases(const GemmBenchRequest& request) {
  std::vector<Isa> measured_isas = request.configs.empty() ? request.isas : std::vector<Isa>{};
  for (const GemmConfig& c : request.configs) measured_isas.push_back(c.isa);
  std::vector<BenchCase> cases = peak_cases(measured_isas);
  for (const GemmShape& s : request.shapes) {
    const GemmProblem problem = gemm_bench_problem(s, request.out_type);
    const GemmConfig base = default_blocking(s);
    for (int t : request.threads) {
      for (GemmConfig c : request.configs) {
        c.threads = t;
        const std::string why = gemm_check_config(problem, c);
        if (!why.empty()) throw std::invalid_argument("configuration " + from_gemm_config(c).key() + ": " + why);
        cases.push_back(qtune_case(s, problem, c, request.weights));
      }
      const auto microkernels =
          request.configs.empty() ? gemm_microkernels() : std::span<const GemmMicrokernelInfo>{};
      for (const GemmMicrokernelInfo& uk : microkernels) {
        if (std::find(request.isas.begin(), request.isas.end(), uk.isa) == request.isas.end()) continue;
        for (bool pack_a : {true, false}) {
          for (bool fuse : {true, false}) {
            if (request.out_type == DType::s32 && !fuse) continue;  // nothing to fuse
            const GemmConfig c = variant_config(base, uk, pack_a, fuse, t);
            if (gemm_check_config(problem, c).empty()) cases.push_back(qtune_case(s, problem, c, request.weights));
          }
        }
      }
#if defined(QTUNE_HAVE_ONEDNN)
      cases.push_back(onednn_case(s, request.out_type, t));
#endif
#if defined(QTUNE_HAVE_XNNPACK)
      // XNNPACK has no int32-output operator.
      if (request.out_type == DType::s8) cases.push_back(xnnpack_case(s, t));
#endif
    }
  }
  return cases;
}

}  // namespace qtune::bench
