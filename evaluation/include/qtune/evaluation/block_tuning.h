// Tuning a model's blocks of layers (qtune/executor/model_blocks.h) into the database, after its
// layers: each block measured as its layers one by one and fused at each strip height, with the
// layers' tuned configurations (and their defaults), every candidate checked against the layers
// run one by one by the scalar reference and recorded like a layer's; the leading ones measured
// again until the choice rests on several measurements. The executor then runs each
// block as its best record says (ExecutorOptions::Fusion::tuned). Resumable: a candidate the
// database already holds for the target is not measured again.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "qtune/measure/result.h"
#include "qtune/measure/settings.h"
#include "qtune/onnx_import/model_graph.h"
#include "qtune/records/tuning_db.h"

namespace qtune::evaluation {

// Measures a (block) workload key at a configuration key: an isolated worker's measure_keys in
// `qtune tune`, measure_keys_in_process in tests.
using KeyMeasure = std::function<MeasureResult(const std::string& workload_key, const std::string& config_key,
                                               const MeasureSettings& settings)>;

struct BlockTuning {
  std::string name;         // the members' names joined by '+'
  std::string workload_key;
  int measured = 0;         // candidates measured now
  int errors = 0;           // of them, those that failed (wrong answer, crash, rejected configuration)
  // Each configuration's time as the records define the best (the lower median of its measurements):
  // the layers one by one, and the configuration the runtime runs (Runtime::tuned_block: the fastest
  // fused one where it pays by the margin, else the layers one by one).
  std::optional<double> unfused_ns, best_ns;
  std::string best_config;
};

struct BlockTuningOptions {
  std::string target_key;
  int threads = 1;  // the blocks' thread budget: the layers' (`qtune tune --threads`)
  MeasureSettings measure;
  // The layers one by one and this many leading fused candidates are measured until each has three
  // measurements (their time: the lower median, as the records define the best); 0: each once.
  int confirm = 3;
  std::optional<std::int64_t> session_id;  // the records' session
  const std::atomic<bool>* stop = nullptr; // checked between candidates
  std::ostream* progress = nullptr;        // a line per block
};

// Registers the inverted-residual block with the measurer (qtune/measure/candidate.h,
// register_operator): its keys then measure like a layer's, in this process or an isolated worker
// forked afterwards, each candidate checked against its layers run one by one by the scalar
// reference. Idempotent.
void register_block_operators();

// The blocks of `graph` tuned into `db`; register_block_operators() must come before `measure`
// starts its worker.
std::vector<BlockTuning> tune_model_blocks(const onnx_import::ModelGraph& graph, records::TuningDb& db,
                                           const KeyMeasure& measure, const BlockTuningOptions& options);

}  // namespace qtune::evaluation
