// A quantized ONNX model's layers for evaluation: the layer table (onnx_import/model_workloads.h)
// and each distinct layer's own weights, bias and quantization, in the table's order.
#pragma once

#include <string>
#include <vector>

#include "qtune/evaluation/layer_evaluation.h"
#include "qtune/onnx_import/model.h"
#include "qtune/search_space/workload.h"

namespace qtune::evaluation {

struct ModelLayers {
  WorkloadFile network;             // the distinct layers (first occurrence of each workload)
  std::vector<LayerValues> values;  // one per layer of `network`
};

// `network_name`: the table's name (qtune names it after the model file's stem).
ModelLayers model_layers(const onnx_import::Model& model, const std::string& network_name);

}  // namespace qtune::evaluation
