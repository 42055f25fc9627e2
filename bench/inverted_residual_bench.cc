// MobileNetV2's inverted-residual blocks alone: the expansion, the depthwise convolution and the
// projection one after the other over whole tensors (unfused, as the executor runs them without
// --fusion), or strip by strip with the intermediates in one thread's buffers (the executor's fused
// block, executor/src/fused_inverted_residual.h) at strips of 1, 2, 4 and 8 output rows and at the
// height the executor plans. One thread, the default configuration of each convolution; items/s
// are the block's multiply-accumulates.
//
//   inverted_residual_bench --benchmark_filter=56x56
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "executor/src/fused_inverted_residual.h"
#include "qtune/kernels/conv2d.h"

namespace {

using namespace qtune;

struct Shape {
  const char* name;
  std::int64_t h, in_c, expanded_c, out_c, stride;
};
// One block of each of MobileNetV2's stages (224x224 input), the expansion factor 6.
constexpr Shape kShapes[] = {{"112x112x16-96-s2-24", 112, 16, 96, 24, 2},  {"56x56x24-144-s1-24", 56, 24, 144, 24, 1},
                             {"56x56x24-144-s2-32", 56, 24, 144, 32, 2},   {"28x28x32-192-s1-32", 28, 32, 192, 32, 1},
                             {"14x14x64-384-s1-64", 14, 64, 384, 64, 1},    {"14x14x96-576-s1-96", 14, 96, 576, 96, 1},
                             {"7x7x160-960-s1-160", 7, 160, 960, 160, 1}};

constexpr std::size_t kPlanBytes = 256 * 1024;  // the executor's (executor/src/compile_steps.cc)
constexpr std::int64_t kPlanMinPixels = 64;

struct Member {
  Conv2dProblem problem;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;
  Conv2dConfig config;
};

Member member(std::int64_t h, std::int64_t in_c, std::int64_t out_c, std::int64_t groups, std::int64_t kernel,
              std::int64_t stride, std::mt19937& rng) {
  Member m;
  Conv2dProblem& p = m.problem;
  p.in_h = p.in_w = h;
  p.in_c = in_c;
  p.out_c = out_c;
  p.groups = groups;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = kernel / 2;
  p.a_type = p.out_type = DType::u8;
  p.a_zero_point = 3;
  p.requant = RequantParams::make(RoundingMode::fp32, {0.001}, 3, 3, 255);
  m.weights.resize(static_cast<std::size_t>(out_c * kernel * kernel * (in_c / groups)));
  for (auto& w : m.weights) w = static_cast<std::int8_t>(static_cast<int>(rng() % 61) - 30);
  m.bias.assign(static_cast<std::size_t>(out_c), 100);
  m.config = conv2d_default_config(p);
  return m;
}

// rows: 0 unfused, -1 the planned height, else the strip height.
void block(benchmark::State& state, Shape shape, std::int64_t rows) {
  std::mt19937 rng(1);
  const Member expand = member(shape.h, shape.in_c, shape.expanded_c, 1, 1, 1, rng);
  const Member middle = member(shape.h, shape.expanded_c, shape.expanded_c, shape.expanded_c, 3, shape.stride, rng);
  const std::int64_t out_h = middle.problem.out_h();
  const Member project = member(out_h, shape.expanded_c, shape.out_c, 1, 1, 1, rng);
  std::vector<std::uint8_t> input(static_cast<std::size_t>(shape.h * shape.h * shape.in_c));
  for (auto& x : input) x = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> expanded(static_cast<std::size_t>(shape.h * shape.h * shape.expanded_c));
  std::vector<std::uint8_t> middle_out(static_cast<std::size_t>(out_h * out_h * shape.expanded_c));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(out_h * out_h * shape.out_c));
  const auto as_member = [](const Member& m) {
    return executor::BlockMember{m.problem, m.config, m.weights.data(), m.bias.data()};
  };
  if (rows < 0) {
    rows = executor::plan_inverted_residual_rows(&expand.problem, middle.problem, kPlanBytes, kPlanMinPixels, 1);
    if (rows == 0) {
      state.SkipWithError("the executor does not fuse this block");
      return;
    }
  }
  if (rows > out_h) {
    state.SkipWithError("a strip taller than the image");
    return;
  }
  const Conv2dOp e = Conv2dOp::prepare(expand.problem, expand.config, expand.weights.data(), expand.bias.data());
  const Conv2dOp d = Conv2dOp::prepare(middle.problem, middle.config, middle.weights.data(), middle.bias.data());
  const Conv2dOp p = Conv2dOp::prepare(project.problem, project.config, project.weights.data(), project.bias.data());
  std::optional<executor::FusedInvertedResidual> fused;
  if (rows > 0) fused.emplace(as_member(expand), as_member(middle), as_member(project), rows, 1);
  std::vector<std::uint8_t> scratch(fused ? fused->scratch_bytes() : 0);
  for (auto _ : state) {
    if (fused) {
      fused->run(input.data(), out.data(), scratch.data());
    } else {
      e.run(input.data(), expanded.data());
      d.run(expanded.data(), middle_out.data());
      p.run(middle_out.data(), out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const std::int64_t macs = shape.h * shape.h * shape.in_c * shape.expanded_c + out_h * out_h * shape.expanded_c * 9 +
                            out_h * out_h * shape.expanded_c * shape.out_c;
  state.SetItemsProcessed(state.iterations() * macs);
  if (fused) state.SetLabel(std::to_string(fused->strips()) + " strips of " + std::to_string(rows) + " rows");
}

}  // namespace

int main(int argc, char** argv) {
  for (const Shape& shape : kShapes)
    for (const std::int64_t rows : {0, -1, 1, 2, 4, 8}) {
      const std::string mode = rows == 0 ? "unfused" : rows < 0 ? "fused_planned" : "fused_rows" + std::to_string(rows);
      benchmark::RegisterBenchmark((std::string("inverted_residual/") + shape.name + "/" + mode).c_str(), block, shape, rows);
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
