// `qtune bench --op conv2d`: every usable conv2d variant of one layer shape (each GEMM-based
// algorithm x microkernel x fused/separate requantization, or for depthwise layers each direct
// kernel tile x fused/separate), oneDNN's int8 convolution and onnxruntime's QLinearConv (the
// layer as a one-node ONNX model, bench_onnxruntime.h), per thread count, in one run.
//
// The shape comes from the operator options every command shares (--input N,H,W,C --out-c K
// --kernel KHxKW [--stride S|SHxSW] [--pad P|T,B,L,R] [--dilation D|DHxDW] [--groups G], or
// --workload KEY; operator_options.h) or from a network table (--layer
// workloads/resnet50.json:layer2.0.conv2). Both sides compute u8 activations with a zero point x s8 weights with
// per-channel fp32 output scales -> s8 (RoundingMode::fp32 is oneDNN's output-scale math), or s32.
#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "bench_common.h"
#include "bench_ops.h"
#include "operator_options.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/conv2d_geometry.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/workload.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "peers/onednn_conv.h"
#endif
#if defined(QTUNE_HAVE_ONNX)
#include "bench_onnxruntime.h"
#endif

namespace qtune::cli {
namespace {

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

// The benchmark's quantization: u8 input with zero point 3, zero weight zero points, per-channel
// fp32 scales to s8 with zero point -5 (what oneDNN computes), or s32.
Conv2dProblem bench_problem(const Workload& w, DType out_type) {
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

struct Operands {
  std::vector<std::uint8_t> input, output;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;
  explicit Operands(const Conv2dProblem& p) {
    std::mt19937 rng(1);
    input.resize(static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c));
    for (auto& v : input) v = static_cast<std::uint8_t>(rng());
    weights.resize(static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c));
    for (auto& v : weights) v = static_cast<std::int8_t>(rng() % 255 - 127);
    bias.resize(static_cast<std::size_t>(p.out_c));
    for (auto& v : bias) v = static_cast<std::int32_t>(rng() % 2001) - 1000;
    output.resize(static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1));
  }
};

BenchCase base_case(const Conv2dProblem& p, const std::string& impl, int threads) {
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

BenchCase qtune_case(const Conv2dProblem& p, const Conv2dConfig& c) {
  BenchCase bc = base_case(p, "qtune", c.gemm.threads);
  bc.variant = from_conv2d_config(c).key();
  bc.isa = std::string(to_string(c.gemm.isa));
  // The knob space has no requantization knob for depthwise (its key omits it); the kernels do.
  if (c.algo == ConvAlgo::depthwise && p.out_type != DType::s32) bc.variant += c.gemm.fuse_requant ? ";fuse=1" : ";fuse=0";
  bc.prepare = [p, c]() -> std::function<void()> {
    struct State {
      Operands operands;
      std::unique_ptr<Conv2dOp> op;
    };
    auto st = std::make_shared<State>(State{Operands(p), nullptr});
    st->op = std::make_unique<Conv2dOp>(Conv2dOp::prepare(p, c, st->operands.weights.data(), st->operands.bias.data()));
    return [st] { st->op->run(st->operands.input.data(), st->operands.output.data()); };
  };
  return bc;
}

#if defined(QTUNE_HAVE_ONEDNN)
BenchCase onednn_case(const Conv2dProblem& p, int threads) {
  BenchCase bc = base_case(p, "onednn", threads);
  {
    // The implementation name is only known once the primitive exists.
    const Operands o(p);
    bc.variant = peers::OnednnConv(p, o.weights.data(), o.bias.data(), threads).implementation();
  }
  bc.prepare = [p, threads]() -> std::function<void()> {
    struct State {
      Operands operands;
      std::unique_ptr<peers::OnednnConv> conv;
    };
    auto st = std::make_shared<State>(State{Operands(p), nullptr});
    st->conv = std::make_unique<peers::OnednnConv>(p, st->operands.weights.data(), st->operands.bias.data(), threads);
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

int bench_conv2d(const Args& args) {
  std::string label;
  const Workload workload = workload_from(args, label);
  const std::vector<int> threads = bench_thread_counts(args);
  const std::string out_name = args.value_or("out", "s8");
  if (out_name != "s8" && out_name != "s32") throw UsageError("--out must be s8 or s32, got '" + out_name + "'");
  const Conv2dProblem problem = bench_problem(workload, out_name == "s8" ? DType::s8 : DType::s32);

  const std::vector<Isa> isas = bench_isas(args);
  std::vector<BenchCase> cases = peak_cases(isas);
  for (int t : threads) {
    for (const Conv2dConfig& c : variants(workload, problem, isas, t)) cases.push_back(qtune_case(problem, c));
#if defined(QTUNE_HAVE_ONEDNN)
    if (const std::string why = peers::onednn_conv_unsupported(problem); why.empty()) {
      try {
        cases.push_back(onednn_case(problem, t));
      } catch (const std::exception& e) {
        std::cerr << "qtune bench: oneDNN peer unavailable: " << e.what() << "\n";
      }
    }
#endif
  }
  if (!args.flag("json")) {
    std::cerr << "qtune bench: " << label << ": " << cases.size() << " cases, " << args.value_or("repetitions", "5")
              << " repetitions each\n";
  }
#if defined(QTUNE_HAVE_ONNX)
  // The same layer, values and quantization as qtune's cases, as a one-node ONNX model.
  const Operands operands(problem);
  const std::vector<OnnxRuntimeBenchLayer> onnx_layers{
      {onnx_import::conv2d_layer_model(problem, operands.weights, operands.bias), base_case(problem, "", 1)}};
  const std::vector<BenchResult> results =
      run_bench_cases_with_onnxruntime(std::move(cases), bench_options_from(args), onnx_layers, threads);
#else
  const std::vector<BenchResult> results = run_bench_cases(std::move(cases), bench_options_from(args));
#endif
  print_bench_results(results, args.flag("json"), std::cout);
  return 0;
}

}  // namespace qtune::cli
