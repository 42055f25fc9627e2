#include "qtune/evaluation/whole_model_evaluation.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace qtune::evaluation {
namespace {

// The operations of one run of the model's layers: 2 x multiply-accumulates, as the tuner counts them.
double model_gops(const executor::ModelExecutor& model) {
  double gops = 0;
  for (const onnx_import::GraphOp& op : model.graph().ops)
    if (op.layer) gops += op.layer->workload.gops() * static_cast<double>(op.layer->gemm_batches);
  return gops;
}

// The fastest register-only dot-product loop usable here (qtune/kernels/gemm.h, gemm_peak_loops).
std::optional<GemmPeakLoop> fastest_peak_loop() {
  std::optional<GemmPeakLoop> best;
  double best_rate = 0;
  for (const GemmPeakLoop& loop : gemm_peak_loops()) {
    if (!cpu_features().usable(loop.isa)) continue;
    const auto start = std::chrono::steady_clock::now();
    const double ops = static_cast<double>(run_gemm_peak_loop(loop.isa, 1 << 14));
    const double rate = ops / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rate > best_rate) {
      best_rate = rate;
      best = loop;
    }
  }
  return best;
}

// One timing of the peak loop, in GOP/s on one core.
double peak_gops(Isa isa) {
  const auto start = std::chrono::steady_clock::now();
  const double ops = static_cast<double>(run_gemm_peak_loop(isa, 1 << 15));
  return ops / std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::map<std::string, executor::Tensor> random_inputs(const executor::ModelExecutor& model, unsigned seed) {
  std::mt19937 rng(seed);
  std::map<std::string, executor::Tensor> inputs;
  for (const auto& info : model.inputs()) {
    executor::Tensor t{info.type, info.shape, std::vector<std::uint8_t>(info.bytes())};
    if (info.type == executor::ElementType::f32) {
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      for (std::size_t i = 0; i < t.bytes.size(); i += 4) {
        const float v = value(rng);
        std::memcpy(&t.bytes[i], &v, 4);
      }
    } else {
      for (auto& b : t.bytes) b = static_cast<std::uint8_t>(rng());
    }
    inputs[info.name] = std::move(t);
  }
  return inputs;
}

WholeModelEvaluation evaluate_whole_model(const std::string& model_path, const executor::ModelExecutor& model, int threads,
                                          const WholeModelOptions& options) {
  using clock = std::chrono::steady_clock;
  WholeModelEvaluation result;
  result.threads = threads;
  const auto inputs = random_inputs(model, options.seed);
  std::vector<const void*> in;
  for (const auto& info : model.inputs()) in.push_back(inputs.at(info.name).bytes.data());
  std::vector<std::vector<std::uint8_t>> out_storage;
  std::vector<void*> out;
  for (const auto& info : model.outputs()) {
    out_storage.emplace_back(info.bytes());
    out.push_back(out_storage.back().data());
  }
  std::optional<OnnxRuntimePeer> peer;
  if (options.onnxruntime) {
    result.onnxruntime_threads = onnxruntime_thread_counts(threads);
    peer.emplace(model_path, options.input_shapes, result.onnxruntime_threads);
    result.onnxruntime_version = peer->version();
  }
  // The other compilations of the model timed beside it: without fusion, without tuning records.
  std::vector<double> unfused_ns, untuned_ns;
  std::vector<std::pair<const executor::ModelExecutor*, std::vector<double>*>> besides;
  if (options.unfused != nullptr) besides.emplace_back(options.unfused, &unfused_ns);
  if (options.untuned != nullptr) besides.emplace_back(options.untuned, &untuned_ns);
  // Warm-up: the first runs touch the arena and the packed weights.
  for (int i = 0; i < 3; ++i) model.run(in.data(), out.data());
  for (const auto& [other, ns] : besides)
    for (int i = 0; i < 3; ++i) other->run(in.data(), out.data());

  std::vector<double> whole_ns, peak_samples;
  std::vector<std::vector<double>> steps_per_run;
  const std::optional<GemmPeakLoop> peak_loop = fastest_peak_loop();
  for (int round = 0; round < options.rounds; ++round) {
    // The arithmetic limit in the same rounds: a slow phase lowers it with the model's speed.
    if (peak_loop) peak_samples.push_back(peak_gops(peak_loop->isa));
    const auto round_start = clock::now();
    for (int run = 0; run < options.min_runs_per_round ||
                      std::chrono::duration<double>(clock::now() - round_start).count() < options.min_round_seconds;
         ++run) {
      std::vector<double> step_ns;
      const auto start = clock::now();
      model.run_profiled(in.data(), out.data(), step_ns);
      whole_ns.push_back(std::chrono::duration<double, std::nano>(clock::now() - start).count());
      steps_per_run.push_back(std::move(step_ns));
    }
    // Each other compilation as many runs, right after: a slow phase of the machine reaches all.
    for (const auto& [other, ns] : besides) {
      const std::size_t runs = whole_ns.size() - ns->size();
      for (std::size_t run = 0; run < runs; ++run) {
        const auto start = clock::now();
        other->run(in.data(), out.data());
        ns->push_back(std::chrono::duration<double, std::nano>(clock::now() - start).count());
      }
    }
    if (peer) peer->time_round(options.min_runs_per_round, options.min_round_seconds);
  }
  result.qtune = case_timing(whole_ns);
  result.gops = model_gops(model);
  if (peak_loop && !peak_samples.empty()) {
    std::sort(peak_samples.begin(), peak_samples.end());
    result.peak_instruction = peak_loop->instruction;
    result.peak_gops_per_core = peak_samples[peak_samples.size() / 2];
    result.share_of_limit = result.gops / (result.qtune.median_ns * 1e-9 * result.peak_gops_per_core * threads);
  }
  if (options.unfused != nullptr) result.unfused = case_timing(unfused_ns);
  if (options.untuned != nullptr) result.untuned = case_timing(untuned_ns);

  // Per op type: the median over runs of the type's summed step times.
  std::map<std::string, std::vector<std::size_t>> steps_of_type;
  const auto& steps = model.steps();
  for (std::size_t s = 0; s < steps.size(); ++s) steps_of_type[steps[s].op_type].push_back(s);
  double layers_ns = 0, all_ns = 0;
  for (const auto& [type, indices] : steps_of_type) {
    std::vector<double> per_run;
    for (const auto& run : steps_per_run) {
      double sum = 0;
      for (const std::size_t s : indices) sum += run[s];
      per_run.push_back(sum);
    }
    OpTypeTime t;
    t.op_type = type;
    t.steps = static_cast<int>(indices.size());
    t.median_ns = case_timing(per_run).median_ns;
    t.share = result.qtune.median_ns > 0 ? t.median_ns / result.qtune.median_ns : 0;
    const executor::StepInfo& first = steps[indices.front()];
    all_ns += t.median_ns;
    // A fused block is its layers' step (its additions ride on the convolution's strips).
    if (first.kind == "layer" || first.kind == "float_layer" || first.fused) layers_ns += t.median_ns;
    if (first.fused) result.fused_steps += t.steps;
    result.op_types.push_back(t);
  }
  result.other_than_layers_share = all_ns > 0 ? (all_ns - layers_ns) / all_ns : 0;
  std::sort(result.op_types.begin(), result.op_types.end(), [](const auto& a, const auto& b) { return a.median_ns > b.median_ns; });
  if (peer) {
    for (const auto& samples : peer->finish()) result.onnxruntime.push_back(case_timing(samples.model_ns));
  }
  return result;
}

}  // namespace qtune::evaluation
