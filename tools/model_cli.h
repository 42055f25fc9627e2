// What the commands that read a quantized ONNX model share (`qtune workloads --from-model`,
// `qtune tune --model`, `qtune run --model`): the --input-shape option and loading, which lists
// every node qtune does not compute on stderr. In a build without libonnx-dev / protobuf the
// options exist and say why they cannot be used.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli.h"
#include "qtune/search_space/workload.h"

#ifdef QTUNE_HAVE_ONNX
#include "qtune/executor/model_executor.h"
#include "qtune/onnx_import/model.h"
#endif

namespace qtune::cli {

// --input-shape NAME=D1,D2,... (repeatable).
OptionSpec input_shape_option();
// --fusion / --no-fusion: which blocks the executor runs fused (`qtune run --model`, `qtune infer`).
OptionSpec fusion_option();
OptionSpec no_fusion_option();

// The layer table of the model at `path`, named after the file (its stem).
WorkloadFile model_workload_file(const std::string& path, const Args& args);

#ifdef QTUNE_HAVE_ONNX
// The executor's fusion from --fusion / --no-fusion (UsageError for both): by default the blocks
// the tuning records measured fused.
executor::ExecutorOptions::Fusion fusion_from_args(const Args& args);
onnx_import::Model load_model(const std::string& path, const Args& args);
// The --input-shape options by input name (UsageError for malformed or repeated ones).
std::map<std::string, std::vector<std::int64_t>> input_shapes(const Args& args);
#endif

}  // namespace qtune::cli
