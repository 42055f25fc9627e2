#include "qtune/evaluation/model_layer_values.h"

#include "qtune/onnx_import/model_workloads.h"

namespace qtune::evaluation {

ModelLayers model_layers(const onnx_import::Model& model, const std::string& network_name) {
  ModelLayers out{onnx_import::model_workloads(model, network_name), {}};
  for (const Layer& layer : out.network.layers) {
    for (const auto& m : model.layers) {
      if (m.name != layer.name) continue;
      // A batched matrix product runs its first matrix; the table counts it once per batch.
      const auto weights_used =
          m.op == OpKind::gemm ? m.gemm.k * m.gemm.n : static_cast<std::int64_t>(m.weights.size());
      out.values.push_back({m.gemm, m.conv, {m.weights.begin(), m.weights.begin() + weights_used}, m.bias, m.nodes});
      break;
    }
  }
  return out;
}

}  // namespace qtune::evaluation
