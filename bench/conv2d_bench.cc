// Google Benchmark of the conv2d variants on four real layers, 1 thread:
//   InceptionV3 Conv2d_4a_3x3 (73x73x80, 3x3 -> 192, pad 0) and the 75x75x80 shape of the
//   performance anchors, MobileNetV2 expanded_conv_2/depthwise (56x56x144, 3x3 depthwise) and
//   expanded_conv_2/expand (56x56x24, 1x1 -> 144), ResNet-50 layer2 conv2 (28x28x128, 3x3 -> 128).
// Every usable algorithm with the GEMM default tile (and the depthwise tiles of each usable ISA).
// plus oneDNN's int8 convolution on the same problem when oneDNN is installed (run with
// DNNL_MAX_CPU_ISA=AVX2 etc. to pick its path). Counter GOPS = 2 * MACs / time.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "qtune/libraries/onednn_conv_peer.h"
#endif

namespace {

using namespace qtune;

struct BenchLayer {
  const char* name;
  std::int64_t h, w, c, oc, k, stride, pad, groups;
};

const BenchLayer kLayers[] = {
    {"inception_v3/Conv2d_4a_3x3", 73, 73, 80, 192, 3, 1, 0, 1},
    {"anchor/75x75x80_3x3_192", 75, 75, 80, 192, 3, 1, 0, 1},
    {"mobilenet_v2/expanded_conv_2/depthwise", 56, 56, 144, 144, 3, 1, 1, 144},
    {"mobilenet_v2/expanded_conv_2/expand", 56, 56, 24, 144, 1, 1, 0, 1},
    {"resnet50/layer2.1.conv2", 28, 28, 128, 128, 3, 1, 1, 1},
};

Conv2dProblem make_problem(const BenchLayer& l) {
  Conv2dProblem p;
  p.in_h = l.h;
  p.in_w = l.w;
  p.in_c = l.c;
  p.out_c = l.oc;
  p.kernel_h = p.kernel_w = l.k;
  p.stride_h = p.stride_w = l.stride;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = l.pad;
  p.groups = l.groups;
  p.a_zero_point = 3;
  p.b_zero_points = {0};
  p.out_type = DType::s8;
  std::vector<double> scales(static_cast<std::size_t>(l.oc));
  for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.0005 + 0.00001 * static_cast<double>(i % 17);
  p.requant = RequantParams::make(RoundingMode::tflite, scales, -5, -128, 127);
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
    for (auto& v : weights) v = static_cast<std::int8_t>(rng());
    bias.assign(static_cast<std::size_t>(p.out_c), 100);
    output.resize(static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c));
  }
};

void set_gops(benchmark::State& state, const Conv2dProblem& p) {
  const double macs = static_cast<double>(p.batch * p.out_h() * p.out_w() * p.out_c * p.kernel_h * p.kernel_w * (p.in_c / p.groups));
  state.counters["GOPS"] = benchmark::Counter(2 * macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void run_variant(benchmark::State& state, Conv2dProblem p, Conv2dConfig config) {
  Operands o(p);
  const Conv2dOp op = Conv2dOp::prepare(p, config, o.weights.data(), o.bias.data());
  for (auto _ : state) {
    op.run(o.input.data(), o.output.data());
    benchmark::DoNotOptimize(o.output.data());
  }
  set_gops(state, p);
}

#if defined(QTUNE_HAVE_ONEDNN)
void run_onednn(benchmark::State& state, Conv2dProblem p) {
  Operands o(p);
  const libraries::OnednnConv conv(p, o.weights.data(), o.bias.data(), 1);
  conv.run(o.input.data(), o.output.data());  // JIT warm-up, untimed
  state.SetLabel(conv.implementation());
  for (auto _ : state) {
    conv.run(o.input.data(), o.output.data());
    benchmark::DoNotOptimize(o.output.data());
  }
  set_gops(state, p);
}
#endif

std::string config_name(const Conv2dConfig& c) {
  std::string s = std::string(to_string(c.algo)) + "/" + std::string(to_string(c.gemm.isa));
  if (c.algo == ConvAlgo::depthwise) {
    return s + "/dw" + std::to_string(c.dw_channel_tile) + "x" + std::to_string(c.dw_width_tile);
  }
  return s + "/" + std::to_string(c.gemm.mr) + "x" + std::to_string(c.gemm.nr);
}

void register_all() {
  for (const BenchLayer& layer : kLayers) {
    const Conv2dProblem p = make_problem(layer);
    std::vector<Conv2dConfig> configs;
    const Conv2dConfig base = conv2d_default_config(p);
    if (p.depthwise()) {
      for (Isa isa : cpu_features().usable_isas()) {
        for (int ct : {8, 16, 32, 64}) {
          for (int wt : {1, 2, 4}) {
            Conv2dConfig c = base;
            c.gemm.isa = isa;
            c.dw_channel_tile = ct;
            c.dw_width_tile = wt;
            if (conv2d_check_config(p, c).empty()) configs.push_back(c);
          }
        }
      }
    } else {
      for (ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::gemm_1x1, ConvAlgo::implicit}) {
        Conv2dConfig c = base;
        c.algo = algo;
        if (algo == ConvAlgo::indirect) c.gemm.pack_a = true;
        if (algo == ConvAlgo::implicit) {  // kernel rows read in place: the K blocks are the rows
          c.gemm.pack_a = false;
          c.gemm.kc = 0;
        }
        if (conv2d_check_config(p, c).empty()) configs.push_back(c);
      }
    }
#if defined(QTUNE_HAVE_ONEDNN)
    benchmark::RegisterBenchmark((std::string(layer.name) + "/onednn").c_str(), run_onednn, p)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
#endif
    for (const Conv2dConfig& c : configs) {
      benchmark::RegisterBenchmark((std::string(layer.name) + "/" + config_name(c)).c_str(), run_variant, p, c)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
