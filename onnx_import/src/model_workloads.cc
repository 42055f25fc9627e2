#include "qtune/onnx_import/model_workloads.h"

#include <map>

namespace qtune::onnx_import {

WorkloadFile model_workloads(const Model& model, const std::string& network) {
  WorkloadFile file;
  file.network = network;
  file.description = "the quantized convolutions and matrix products of " + model.path + " (read by qtune, opset " +
                     std::to_string(model.opset) + ")";
  std::map<std::string, std::size_t> by_key;
  for (const ModelLayer& layer : model.layers) {
    const auto [it, inserted] = by_key.emplace(layer.workload.key(), file.layers.size());
    const int count = static_cast<int>(layer.gemm_batches);
    if (inserted) {
      file.layers.push_back({layer.name, layer.workload, count});
    } else {
      file.layers[it->second].count += count;
    }
  }
  return file;
}

}  // namespace qtune::onnx_import
