#include "qtune/bench/onnxruntime_cases.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include <unistd.h>

#include "qtune/evaluation/onnxruntime_peer.h"

namespace qtune::bench {
namespace {

using evaluation::OnnxRuntimePeer;
using evaluation::OnnxRuntimeSamples;
using evaluation::node_round_means;

constexpr auto kSettle = std::chrono::milliseconds(50);

// The layer's model in a temporary file for as long as onnxruntime reads it.
class ModelFile {
 public:
  explicit ModelFile(const onnx_import::LayerModel& model, std::size_t index) {
    path_ = std::filesystem::temp_directory_path() /
            ("qtune-bench-" + std::to_string(::getpid()) + "-" + std::to_string(index) + ".onnx");
    std::ofstream out(path_, std::ios::binary);
    out.write(model.bytes.data(), static_cast<std::streamsize>(model.bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path_.string());
  }
  ~ModelFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ModelFile(const ModelFile&) = delete;
  ModelFile& operator=(const ModelFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct RunningLayer {
  const OnnxRuntimeBenchLayer* layer;
  std::unique_ptr<ModelFile> file;
  std::unique_ptr<OnnxRuntimePeer> peer;
};

BenchResult with_samples(BenchResult r, std::vector<double> samples) {
  r.samples_ns = std::move(samples);
  if (r.samples_ns.empty()) {
    if (r.error.empty()) r.error = "no timing";
    return r;
  }
  r.median_ns = case_timing(r.samples_ns).median_ns;
  r.gops = r.bench.ops / r.median_ns;
  return r;
}

}  // namespace

std::vector<OnnxRuntimeBenchLayer> onnxruntime_layers(const GemmBenchRequest& request) {
  std::vector<OnnxRuntimeBenchLayer> layers;
  for (const GemmShape& s : request.shapes) {
    std::mt19937 rng(2);
    std::vector<std::int8_t> b(static_cast<std::size_t>(s.k * s.n));
    for (auto& v : b) v = static_cast<std::int8_t>(rng());
    const std::vector<std::int32_t> bias(static_cast<std::size_t>(s.n), 100);
    layers.push_back({onnx_import::gemm_layer_model(gemm_bench_problem(s, request.out_type), b, bias),
                      gemm_shape_case(s, "", 1)});
  }
  return layers;
}

std::vector<OnnxRuntimeBenchLayer> onnxruntime_layers(const Conv2dBenchRequest& request) {
  const Conv2dProblem problem = conv2d_bench_problem(request.workload, request.out_type);
  const ConvOperands operands(problem, request.weights);
  return {{onnx_import::conv2d_layer_model(problem, operands.weights, operands.bias), conv2d_shape_case(problem, "", 1)}};
}

std::vector<BenchResult> run_bench_cases_with_onnxruntime(std::vector<BenchCase> cases, const BenchOptions& options,
                                                          const std::vector<OnnxRuntimeBenchLayer>& layers,
                                                          const std::vector<int>& threads) {
  std::vector<RunningLayer> running;
  try {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      RunningLayer r{&layers[i], std::make_unique<ModelFile>(layers[i].model, i), nullptr};
      r.peer = std::make_unique<OnnxRuntimePeer>(r.file->path().string(),
                                                 std::map<std::string, std::vector<std::int64_t>>{}, threads);
      running.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    std::cerr << "qtune bench: onnxruntime peer unavailable: " << e.what() << "\n";
    return run_bench_cases(std::move(cases), options);
  }
  // One repetition of every case, then a round of onnxruntime per layer, `repetitions` times.
  BenchOptions one = options;
  one.repetitions = 1;
  std::vector<BenchResult> merged;
  for (int r = 0; r < options.repetitions; ++r) {
    const std::vector<BenchResult> round = run_bench_cases(cases, one);
    if (merged.empty()) {
      merged = round;
    } else {
      for (std::size_t i = 0; i < round.size(); ++i) {
        if (!round[i].error.empty() && merged[i].error.empty()) merged[i].error = round[i].error;
        merged[i].samples_ns.insert(merged[i].samples_ns.end(), round[i].samples_ns.begin(), round[i].samples_ns.end());
      }
    }
    // Each side's idle workers spin for a while after a run (OpenMP's some 10 ms, onnxruntime's
    // too), on the cores the other side needs next: a pause before and after onnxruntime's turn.
    std::this_thread::sleep_for(kSettle);
    for (RunningLayer& l : running) l.peer->time_round(1, options.min_time);
    std::this_thread::sleep_for(kSettle);
  }
  for (BenchResult& r : merged) {
    if (!r.error.empty()) continue;
    std::vector<double> samples = std::move(r.samples_ns);
    r = with_samples(std::move(r), std::move(samples));
  }
  for (RunningLayer& l : running) {
    const std::string version = l.peer->version();
    for (const OnnxRuntimeSamples& s : l.peer->finish()) {
      BenchResult r;
      r.bench = l.layer->shape;
      r.bench.impl = "onnxruntime";
      r.bench.threads = s.threads;
      r.bench.variant = l.layer->model.op_type + " kernel, onnxruntime " + version;
      if (!l.layer->model.not_expressed.empty()) r.bench.variant += "; " + l.layer->model.not_expressed;
      const std::vector<double> means = node_round_means(s, l.layer->model.node_name);
      if (means.empty()) r.error = "onnxruntime's profile has no node named " + l.layer->model.node_name;
      merged.push_back(with_samples(std::move(r), means));
    }
  }
  return merged;
}

}  // namespace qtune::bench
