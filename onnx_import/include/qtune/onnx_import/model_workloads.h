// A model's layer table in the workload-file form (workloads/README.md): what `qtune workloads
// --from-model` writes and what `qtune tune --model` tunes.
#pragma once

#include "qtune/onnx_import/model.h"
#include "qtune/search_space/workload.h"

namespace qtune::onnx_import {

// One entry per distinct workload, named after its first node, counts added (a batched matrix
// product counts once per batch); `network` names the table.
WorkloadFile model_workloads(const Model& model, const std::string& network);

}  // namespace qtune::onnx_import
