// onnxruntime as a peer of `qtune bench` (built with ONNX support): the benchmarked layer written as
// a one-node quantized ONNX model (onnx_import/layer_model.h: QLinearConv, QLinearMatMul, ...) and
// timed in onnxruntime at each of the bench's thread counts, in rounds that alternate with the
// repetitions of the other cases (qtune's variants, oneDNN): one repetition of every case, one
// round of onnxruntime, and so on. Its time is the kernel time of the layer's node (onnxruntime's
// profiler: no Node.js overhead; layout transposes onnxruntime adds around it are not counted, as
// qtune's activations are NHWC already), the mean over a round's runs as one repetition.
#pragma once

#include <vector>

#include "qtune/bench/bench_cases.h"
#include "qtune/bench/conv2d_cases.h"
#include "qtune/bench/gemm_cases.h"
#include "qtune/onnx_import/layer_model.h"

namespace qtune::bench {

struct OnnxRuntimeBenchLayer {
  onnx_import::LayerModel model;
  BenchCase shape;  // op, shape and ops of the layer (impl, variant and threads are set per result)
};

// The request's layers as one-node ONNX models, with the values and quantization qtune's cases use.
std::vector<OnnxRuntimeBenchLayer> onnxruntime_layers(const GemmBenchRequest& request);
std::vector<OnnxRuntimeBenchLayer> onnxruntime_layers(const Conv2dBenchRequest& request);

// Runs `cases` as run_bench_cases() does, with onnxruntime timing `layers` at each of `threads`
// between the repetitions; the onnxruntime results follow the cases'. Where onnxruntime cannot run
// (not installed, the model refused), says why on stderr and times the cases alone.
std::vector<BenchResult> run_bench_cases_with_onnxruntime(std::vector<BenchCase> cases, const BenchOptions& options,
                                                          const std::vector<OnnxRuntimeBenchLayer>& layers,
                                                          const std::vector<int>& threads);

}  // namespace qtune::bench
