// A whole quantized model timed end to end: qtune's executor (every operation of the graph, the
// tuned conv/matmul layers among them) beside onnxruntime's session.run at 1 and 2 threads (or 1
// and the budget), in alternating rounds so that a slow phase of a shared machine reaches both.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qtune/evaluation/onnxruntime_peer.h"
#include "qtune/executor/model_executor.h"
#include "qtune/measure/timing_verdict.h"

namespace qtune::evaluation {

struct WholeModelOptions {
  int rounds = 7;                 // qtune / onnxruntime alternations
  int min_runs_per_round = 3;     // per side and round
  double min_round_seconds = 0.2; // per side and round
  bool onnxruntime = false;       // time onnxruntime too (Node.js, onnxruntime-node)
  std::map<std::string, std::vector<std::int64_t>> input_shapes;  // for onnxruntime's dynamic dimensions
  unsigned seed = 1;              // of the random inputs
  // The same model compiled without fusion, timed in the same rounds (the reference a fused run
  // is compared with), or null.
  const executor::ModelExecutor* unfused = nullptr;
  // The same model compiled without tuning records (every layer's default configuration, no
  // block tuned), timed in the same rounds: what the tuning gives the whole model. Or null.
  const executor::ModelExecutor* untuned = nullptr;
};

// The time of one op type (the ONNX op type of a step, "layout" for the executor's conversions).
struct OpTypeTime {
  std::string op_type;
  int steps = 0;           // steps of this type in the compiled model
  double median_ns = 0;    // median over runs of the type's summed step times
  double share = 0;        // of the median whole run
};

struct WholeModelEvaluation {
  int threads = 1;
  CaseTiming qtune;                 // the executor's whole run
  std::optional<CaseTiming> unfused;  // WholeModelOptions::unfused's, when given
  std::optional<CaseTiming> untuned;  // WholeModelOptions::untuned's, when given
  int fused_steps = 0;              // steps that run several operations as one block
  // The arithmetic limit: the model's layers' operations (2 x MACs, 1e9) over the median run, as a
  // share of `threads` cores at the fastest register-only dot-product loop usable here (its median
  // GOP/s per core, timed once per round); 0 where no such loop is compiled in.
  double gops = 0;
  std::string peak_instruction;
  double peak_gops_per_core = 0;
  double share_of_limit = 0;
  std::vector<OpTypeTime> op_types;  // slowest first
  double other_than_layers_share = 0;  // steps that are not conv/matmul layers, of the summed step times
  std::string onnxruntime_version;
  std::vector<int> onnxruntime_threads;
  std::vector<CaseTiming> onnxruntime;  // session.run per thread count
};

// Random inputs of every graph input's type and shape (floats uniform in [-1, 1]).
std::map<std::string, executor::Tensor> random_inputs(const executor::ModelExecutor& model, unsigned seed);

// `model_path` is the file the executor was loaded from (onnxruntime loads it too).
WholeModelEvaluation evaluate_whole_model(const std::string& model_path, const executor::ModelExecutor& model, int threads,
                                          const WholeModelOptions& options);

}  // namespace qtune::evaluation
