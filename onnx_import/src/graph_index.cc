#include "graph_index.h"

namespace qtune::onnx_import::detail {

GraphIndex::GraphIndex(const onnx::GraphProto& graph) {
  for (const auto& tensor : graph.initializer()) constants_[tensor.name()] = &tensor;
  for (const auto& node : graph.node()) {
    for (const auto& output : node.output()) producers_[output] = &node;
    for (const auto& input : node.input()) {
      if (!input.empty()) consumers_[input].push_back(&node);
    }
    // A Constant node holding a tensor is a constant like an initializer.
    if (node.op_type() == "Constant" && node.output_size() == 1) {
      for (const auto& attribute : node.attribute()) {
        if (attribute.name() == "value" && attribute.has_t()) constants_[node.output(0)] = &attribute.t();
      }
    }
  }
  for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()}) {
    for (const auto& info : *list) {
      if (info.has_type()) types_[info.name()] = &info.type();
    }
  }
}

const onnx::TensorProto* GraphIndex::constant(const std::string& tensor) const {
  const auto it = constants_.find(tensor);
  return it == constants_.end() ? nullptr : it->second;
}

const onnx::NodeProto* GraphIndex::producer(const std::string& tensor) const {
  const auto it = producers_.find(tensor);
  return it == producers_.end() ? nullptr : it->second;
}

std::vector<const onnx::NodeProto*> GraphIndex::consumers(const std::string& tensor) const {
  const auto it = consumers_.find(tensor);
  return it == consumers_.end() ? std::vector<const onnx::NodeProto*>{} : it->second;
}

std::optional<std::vector<std::int64_t>> GraphIndex::shape(const std::string& tensor) const {
  if (const auto* c = constant(tensor)) return std::vector<std::int64_t>(c->dims().begin(), c->dims().end());
  const auto it = types_.find(tensor);
  if (it == types_.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const auto& d : it->second->tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

std::optional<int> GraphIndex::element_type(const std::string& tensor) const {
  if (const auto* c = constant(tensor)) return c->data_type();
  const auto it = types_.find(tensor);
  if (it == types_.end() || !it->second->has_tensor_type()) return std::nullopt;
  return it->second->tensor_type().elem_type();
}

}  // namespace qtune::onnx_import::detail
