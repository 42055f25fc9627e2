// The residual block's end, alone: QLinearAdd's throughput with its operands in L1, in L2 and
// beyond it (items/s = elements added per second), and a pointwise convolution followed by the
// Add, one after the other over whole tensors (unfused) or strip by strip (the executor's fused
// conv+add block, executor/src/fused_conv_add.h), on ResNet-50's and MobileNetV2's block shapes.
// One thread, the default configuration of each convolution.
//
//   residual_add_bench --benchmark_filter=conv_add
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "executor/src/fused_conv_add.h"
#include "executor/src/quantized_ops.h"
#include "qtune/kernels/conv2d.h"

namespace {

using namespace qtune;
using qtune::executor::Quantization;

const Quantization kA{0.05f, 128}, kB{0.03f, 120}, kC{0.07f, 125};

std::vector<std::uint8_t> random_bytes(std::size_t n, std::mt19937& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return v;
}

void add(benchmark::State& state, std::size_t elements) {
  std::mt19937 rng(1);
  const auto a = random_bytes(elements, rng), b = random_bytes(elements, rng);
  std::vector<std::uint8_t> c(elements);
  for (auto _ : state) {
    executor::qlinear_add<std::uint8_t>(a.data(), b.data(), c.data(), elements, kA, kB, kC);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * elements));
}

struct Block {
  const char* name;
  std::int64_t h, w, in_c, out_c;
};
// ResNet-50's bottleneck ends at 56x56 and 28x28, MobileNetV2's projections at 56x56 and 28x28.
constexpr Block kBlocks[] = {{"resnet50_56x56x64-256", 56, 56, 64, 256},
                             {"resnet50_28x28x128-512", 28, 28, 128, 512},
                             {"mobilenet_v2_56x56x144-24", 56, 56, 144, 24},
                             {"mobilenet_v2_28x28x192-32", 28, 28, 192, 32}};

void conv_add(benchmark::State& state, Block block, bool fused) {
  Conv2dProblem p;
  p.in_h = block.h;
  p.in_w = block.w;
  p.in_c = block.in_c;
  p.out_c = block.out_c;
  p.a_type = DType::u8;
  p.a_zero_point = 128;
  p.out_type = DType::u8;
  p.requant = RequantParams::make(RoundingMode::fp32, {0.0004}, kA.zero_point, 0, 255);
  std::mt19937 rng(1);
  const auto input = random_bytes(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c), rng);
  const auto weight_bytes = random_bytes(static_cast<std::size_t>(p.in_c * p.out_c), rng);
  const std::vector<std::int8_t> weights(weight_bytes.begin(), weight_bytes.end());
  const std::vector<std::int32_t> bias(static_cast<std::size_t>(p.out_c), 100);
  const std::size_t count = static_cast<std::size_t>(p.in_h * p.in_w * p.out_c);
  const auto skip = random_bytes(count, rng);
  std::vector<std::uint8_t> conv_out(count), out(count);
  const Conv2dConfig config = conv2d_default_config(p);
  const auto strips = executor::plan_conv_strips(p, 12 * 1024, 64);
  if (!strips) {
    state.SkipWithError("no strips");
    return;
  }
  const Conv2dOp conv = Conv2dOp::prepare(p, config, weights.data(), bias.data());
  const executor::FusedConvAdd block_op(p, config, weights.data(), bias.data(), *strips, true, kA, kB, kC);
  std::vector<std::uint8_t> scratch(block_op.scratch_bytes(1));
  for (auto _ : state) {
    if (fused) {
      block_op.run<std::uint8_t>(input.data(), skip.data(), out.data(), scratch.data(), 1);
    } else {
      conv.run(input.data(), conv_out.data());
      executor::qlinear_add<std::uint8_t>(conv_out.data(), skip.data(), out.data(), count, kA, kB, kC);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
  state.SetLabel(std::to_string(strips->strips) + " strips of " + std::to_string(strips->rows) + " rows");
}

}  // namespace

int main(int argc, char** argv) {
  // 12 KiB, 768 KiB, 8 MiB per operand.
  for (const std::size_t elements : {std::size_t{12} << 10, std::size_t{768} << 10, std::size_t{8} << 20})
    benchmark::RegisterBenchmark(("qlinear_add/" + std::to_string(elements >> 10) + "KiB").c_str(), add, elements);
  for (const Block& block : kBlocks)
    for (const bool fused : {false, true})
      benchmark::RegisterBenchmark((std::string("conv_add/") + block.name + (fused ? "/fused" : "/unfused")).c_str(), conv_add,
                                   block, fused);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
