// GEMM variants against oneDNN on the shapes, in one Google Benchmark run:
//   qtune/<M>x<N>x<K>/<variant key>   every microkernel this CPU runs, fused and separate
//                                     requantization, packed and in-place A where supported, at the
//                                     default blocking, 1 and 2 threads
//   onednn/<M>x<N>x<K>/threads=<T>    oneDNN matmul u8 x s8 -> s8 with an output scale
//   xnnpack/<M>x<N>x<K>/threads=<T>   XNNPACK fully-connected qs8 (s8 x s8 -> s8)
//   prepare/<M>x<N>x<K>/<variant key> GemmOp::prepare alone, one thread, fused: packing B and, for
//                                     the byte families, choosing the pair order and clipping;
//                                     every tuning trial pays it once per candidate
// Both requantize with the same math: fp32 scaling (RoundingMode::fp32), one scale per tensor.
// Counter "GOPS" = 2*M*N*K / time. Filter with --benchmark_filter (e.g. 'avx2.*tile=6x16').
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "qtune/libraries/onednn_matmul_peer.h"
#endif
#if defined(QTUNE_HAVE_XNNPACK)
#include "peers/xnnpack_fully_connected.h"
#endif

namespace {

struct Shape {
  std::int64_t m, n, k;
};
// The last: ResNet-50's largest weights (its last 3x3 convolution, 7x7 output pixels, as a GEMM).
constexpr Shape kShapes[] = {{5625, 192, 720}, {256, 256, 256},  {1024, 1024, 1024},
                             {3136, 144, 24},  {784, 128, 1152}, {49, 512, 4608}};

std::string shape_name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

qtune::GemmProblem make_problem(const Shape& s) {
  qtune::GemmProblem p;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.a_type = qtune::DType::u8;
  p.a_zero_point = 3;
  p.out_type = qtune::DType::s8;
  // The math of oneDNN's output scale: fp32 rounding, one scale per tensor.
  p.requant = qtune::RequantParams::make(qtune::RoundingMode::fp32, {0.0005}, 0, -128, 127);
  return p;
}

std::string config_key(const qtune::GemmConfig& c) {
  return "isa=" + std::string(qtune::to_string(c.isa)) + ";tile=" + std::to_string(c.mr) + "x" + std::to_string(c.nr) +
         ";kc=" + std::to_string(c.kc) + ";mc=" + std::to_string(c.mc) + ";nc=" + std::to_string(c.nc) +
         ";pack_a=" + std::to_string(c.pack_a) + ";fuse=" + std::to_string(c.fuse_requant) +
         ";threads=" + std::to_string(c.threads);
}

void set_gops(benchmark::State& state, const Shape& s) {
  state.counters["GOPS"] = benchmark::Counter(2.0 * static_cast<double>(s.m * s.n * s.k),
                                              benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
}

void register_qtune(const Shape& s, const qtune::GemmConfig& config) {
  benchmark::RegisterBenchmark(("qtune/" + shape_name(s) + "/" + config_key(config)).c_str(),
                               [s, config](benchmark::State& state) {
                                 const qtune::GemmProblem p = make_problem(s);
                                 std::mt19937 rng(1);
                                 std::vector<std::uint8_t> a(static_cast<std::size_t>(s.m * s.k));
                                 std::vector<std::int8_t> b(static_cast<std::size_t>(s.k * s.n));
                                 std::vector<std::int32_t> bias(static_cast<std::size_t>(s.n), 100);
                                 for (auto& v : a) v = static_cast<std::uint8_t>(rng());
                                 for (auto& v : b) v = static_cast<std::int8_t>(rng());
                                 std::vector<std::uint8_t> c(static_cast<std::size_t>(s.m * s.n));
                                 const auto op = qtune::GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(s.n),
                                                                        bias.data());
                                 op.run(a.data(), static_cast<std::size_t>(s.k), c.data(), static_cast<std::size_t>(s.n));
                                 for (auto _ : state) {
                                   op.run(a.data(), static_cast<std::size_t>(s.k), c.data(), static_cast<std::size_t>(s.n));
                                   benchmark::ClobberMemory();
                                 }
                                 set_gops(state, s);
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_prepare(const Shape& s, const qtune::GemmConfig& config) {
  benchmark::RegisterBenchmark(("prepare/" + shape_name(s) + "/" + config_key(config)).c_str(),
                               [s, config](benchmark::State& state) {
                                 const qtune::GemmProblem p = make_problem(s);
                                 std::mt19937 rng(1);
                                 std::vector<std::int8_t> b(static_cast<std::size_t>(s.k * s.n));
                                 std::vector<std::int32_t> bias(static_cast<std::size_t>(s.n), 100);
                                 for (auto& v : b) v = static_cast<std::int8_t>(rng());
                                 for (auto _ : state) {
                                   auto op = qtune::GemmOp::prepare(p, config, b.data(), static_cast<std::size_t>(s.n),
                                                                    bias.data());
                                   benchmark::DoNotOptimize(op);
                                 }
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

void register_all() {
  const auto& cpu = qtune::cpu_features();
  for (const Shape& s : kShapes) {
    const qtune::GemmProblem p = make_problem(s);
    const qtune::GemmConfig base = qtune::gemm_default_config(p);
    for (int threads : {1, 2}) {
      for (const auto& uk : qtune::gemm_microkernels()) {
        if (!cpu.usable(uk.isa) || uk.isa == qtune::Isa::scalar) continue;
        for (bool pack_a : {true, false}) {
          for (bool fuse : {true, false}) {
            qtune::GemmConfig c = base;
            c.isa = uk.isa;
            c.mr = uk.mr;
            c.nr = uk.nr;
            c.kc = base.kc == 0 ? 0 : base.kc / uk.kr * uk.kr;
            c.pack_a = pack_a;
            c.fuse_requant = fuse;
            c.threads = threads;
            if (!qtune::gemm_check_config(p, c).empty()) continue;
            register_qtune(s, c);
            if (threads == 1 && fuse) register_prepare(s, c);
          }
        }
      }
#if defined(QTUNE_HAVE_ONEDNN)
      benchmark::RegisterBenchmark(("onednn/" + shape_name(s) + "/threads=" + std::to_string(threads)).c_str(),
                                   [s, threads](benchmark::State& state) {
                                     qtune::libraries::OnednnMatmul peer(s.m, s.n, s.k, qtune::DType::s8, threads);
                                     state.SetLabel(peer.implementation());
                                     for (auto _ : state) peer.run();
                                     set_gops(state, s);
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
#endif
#if defined(QTUNE_HAVE_XNNPACK)
      benchmark::RegisterBenchmark(("xnnpack/" + shape_name(s) + "/threads=" + std::to_string(threads)).c_str(),
                                   [s, threads](benchmark::State& state) {
                                     qtune::peers::XnnpackFullyConnected peer(s.m, s.n, s.k, threads);
                                     state.SetLabel(qtune::peers::XnnpackFullyConnected::implementation());
                                     for (auto _ : state) peer.run();
                                     set_gops(state, s);
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
#endif
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
