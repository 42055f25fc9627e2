// The cases of `qtune bench --op conv2d`: every usable conv2d variant of one layer shape (each GEMM-based
// algorithm x microkernel x fused/separate requantization, or for depthwise layers each direct
// kernel tile x fused/separate), oneDNN's int8 convolution and onnxruntime's QLinearConv (the
// layer as a one-node ONNX model, onnxruntime_cases.h), per thread count, in one run.
//
// Both sides compute u8 activations with a zero point x s8 weights with
// per-channel fp32 output scales -> s8 (RoundingMode::fp32 is oneDNN's output-scale math), or s32.
#include <algorithm>
#include <iostream>
#include <memory>
#include <random>

#include "qtune/bench/conv2d_cases.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/conv2d_geometry.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/workload.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "qtune/libraries/onednn_conv_peer.h"
#endif

namespace qtune::bench {

Conv2dProblem conv2d_bench_problem(const Workload& w, DType out_type) {
  Conv2dProblem p;
  copy_conv2d_geometry(w, p);
  p.a_type = DType::u8;
  p.a_zero_point = 3;
  p.b_zero_points = {0};
  p.out_type = out_type;
  if (out_type != DType::s32) {
    std::vector<double> scales(static_cast<std::size_t>(w.out_c));
    for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.0004 + 0.00001 * static_cast<double>(i % 13);
    p.requant = RequantParams::make(RoundingMode::fp32, scales, -5, -128, 127);
  }
  p.validate();
  return p;
}

ConvOperands::ConvOperands(const Conv2dProblem& p, WeightDistribution distribution) {
  std::mt19937 rng(1);
  input.resize(static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c));
  for (auto& v : input) v = static_cast<std::uint8_t>(rng());
  std::mt19937_64 weight_rng(2);
  weights = draw_weights(distribution, static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c),
                         static_cast<std::size_t>(p.out_c), weight_rng);
  bias.resize(static_cast<std::size_t>(p.out_c));
  for (auto& v : bias) v = static_cast<std::int32_t>(rng() % 2001) - 1000;
  output.resize(static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1));
}

BenchCase conv2d_shape_case(const Conv2dProblem& p, const std::string& impl, int threads) {
  BenchCase bc;
  bc.op = "conv2d";
  bc.shape = {{"batch", p.batch},       {"h", p.in_h},           {"w", p.in_w},          {"c", p.in_c},
              {"oc", p.out_c},          {"kh", p.kernel_h},      {"kw", p.kernel_w},     {"stride_h", p.stride_h},
              {"stride_w", p.stride_w}, {"pad_top", p.pad_top},  {"pad_bottom", p.pad_bottom},
              {"pad_left", p.pad_left}, {"pad_right", p.pad_right}, {"groups", p.groups},
              // The GEMM fields of the same layer (one group): M x N x K.
              {"m", p.batch * p.out_h() * p.out_w()}, {"n", p.out_c / p.groups},
              {"k", p.kernel_h * p.kernel_w * (p.in_c / p.groups)}};
  bc.impl = impl;
  bc.threads = threads;
  bc.ops = 2.0 * static_cast<double>(p.batch * p.out_h() * p.out_w() * p.out_c) *
           static_cast<double>(p.kernel_h * p.kernel_w * (p.in_c / p.groups));
  return bc;
}

namespace {

BenchCase qtune_case(const Conv2dProblem& p, const Conv2dConfig& c, WeightDistribution weights) {
  BenchCase bc = conv2d_shape_case(p, "qtune", c.gemm.threads);
  bc.variant = from_conv2d_config(c).key();
  bc.isa = std::string(to_string(c.gemm.isa));
  // The knob space has no requantization knob for depthwise (its key omits it); the kernels do.
  if (c.algo == ConvAlgo::depthwise && p.out_type != DType::s32) bc.variant += c.gemm.fuse_requant ? ";fuse=1" : ";fuse=0";
  bc.prepare = [p, c, weights]() -> std::function<void()> {
    struct State {
      ConvOperands operands;
      std::unique_ptr<Conv2dOp> op;
    };
    auto st = std::make_shared<State>(State{ConvOperands(p, weights), nullptr});
    st->op = std::make_unique<Conv2dOp>(Conv2dOp::prepare(p, c, st->operands.weights.data(), st->operands.bias.data()));
    return [st] { st->op->run(st->operands.input.data(), st->operands.output.data()); };
  };
  return bc;
}

#if defined(QTUNE_HAVE_ONEDNN)
BenchCase onednn_case(const Conv2dProblem& p, WeightDistribution weights, int threads) {
  BenchCase bc = conv2d_shape_case(p, "onednn", threads);
  {
    // The implementation name is only known once the primitive exists.
    const ConvOperands o(p, weights);
    bc.variant = libraries::OnednnConv(p, o.weights.data(), o.bias.data(), threads).implementation();
  }
  bc.prepare = [p, weights, threads]() -> std::function<void()> {
    struct State {
      ConvOperands operands;
      std::unique_ptr<libraries::OnednnConv> conv;
    };
    auto st = std::make_shared<State>(State{ConvOperands(p, weights), nullptr});
    st->conv = std::make_unique<libraries::OnednnConv>(p, st->operands.weights.data(), st->operands.bias.data(), threads);
    st->conv->run(st->operands.input.data(), st->operands.output.data());  // JIT warm-up
    return [st] { st->conv->run(st->operands.input.data(), st->operands.output.data()); };
  };
  return bc;
}
#endif

// Every variant worth timing: GEMM-based algorithms x microkernels of the usable vector ISAs x
// fused/separate at the shape's default blocking, or the depthwise kernel tiles. The blocking is
// the untuned default as the tuner sees it (snapped into the search space), so that the printed
// keys parse back (qtune measure) to the same configuration.
std::vector<Conv2dConfig> variants(const Workload& w, const Conv2dProblem& p, const std::vector<Isa>& isas, int threads) {
  const Conv2dConfig base = to_conv2d_config(default_config(w, cpu_features()));
  std::vector<Conv2dConfig> out;
  const std::vector<bool> fuses = p.out_type == DType::s32 ? std::vector<bool>{true} : std::vector<bool>{true, false};
  if (p.depthwise()) {
    for (Isa isa : isas) {
      for (int ct : {8, 16, 32, 64}) {
        for (int wt : {1, 2, 4}) {
          for (bool fuse : fuses) {
            Conv2dConfig c = base;
            c.gemm.isa = isa;
            c.gemm.fuse_requant = fuse;
            c.gemm.threads = threads;
            c.dw_channel_tile = ct;
            c.dw_width_tile = wt;
            if (conv2d_check_config(p, c).empty()) out.push_back(c);
          }
        }
      }
    }
    return out;
  }
  for (ConvAlgo algo : {ConvAlgo::gemm_1x1, ConvAlgo::indirect, ConvAlgo::im2col, ConvAlgo::implicit}) {
    for (const GemmMicrokernelInfo& uk : gemm_microkernels()) {
      if (std::find(isas.begin(), isas.end(), uk.isa) == isas.end()) continue;
      for (bool pack_a : {true, false}) {
        for (bool fuse : fuses) {
          Conv2dConfig c = base;
          c.algo = algo;
          c.gemm.isa = uk.isa;
          c.gemm.mr = uk.mr;
          c.gemm.nr = uk.nr;
          // implicit's K blocks are the kernel rows (kc=0).
          c.gemm.kc = base.gemm.kc == 0 || algo == ConvAlgo::implicit ? 0 : std::max(uk.kr, base.gemm.kc / uk.kr * uk.kr);
          c.gemm.nc = 0;
          c.gemm.pack_a = pack_a;  // the indirect algorithm always packs (check rejects pack_a=0)
          c.gemm.fuse_requant = fuse;
          c.gemm.threads = threads;
          if (conv2d_check_config(p, c).empty()) out.push_back(c);
        }
      }
    }
  }
  return out;
}

}  // namespace

std::vector<BenchCase> conv2d_bench_cases(const Conv2dBenchRequest& request) {
  const Conv2dProblem problem = conv2d_bench_problem(request.workload, request.out_type);
  std::vector<BenchCase> cases = peak_cases(request.isas);
  for (int t : request.threads) {
    for (const Conv2dConfig& c : variants(request.workload, problem, request.isas, t)) cases.push_back(qtune_case(problem, c, request.weights));
#if defined(QTUNE_HAVE_ONEDNN)
    if (const std::string why = libraries::onednn_conv_unsupported(problem); why.empty()) {
      try {
        cases.push_back(onednn_case(problem, request.weights, t));
      } catch (const std::exception& e) {
        std::cerr << "qtune bench: oneDNN peer unavailable: " << e.what() << "\n";
      }
    }
#endif
  }
  return cases;
}

}  // namespace qtune::bench
