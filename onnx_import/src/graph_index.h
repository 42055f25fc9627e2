// Lookups over an ONNX graph after shape inference: constants, the node producing a tensor, the
// nodes reading it, and static shapes and element types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace qtune::onnx_import::detail {

class GraphIndex {
 public:
  explicit GraphIndex(const onnx::GraphProto& graph);

  const onnx::TensorProto* constant(const std::string& tensor) const;  // initializer or Constant node
  const onnx::NodeProto* producer(const std::string& tensor) const;
  std::vector<const onnx::NodeProto*> consumers(const std::string& tensor) const;
  // Every dimension known, else nullopt.
  std::optional<std::vector<std::int64_t>> shape(const std::string& tensor) const;
  std::optional<int> element_type(const std::string& tensor) const;  // TensorProto::DataType

 private:
  std::map<std::string, const onnx::TensorProto*> constants_;
  std::map<std::string, const onnx::NodeProto*> producers_;
  std::map<std::string, std::vector<const onnx::NodeProto*>> consumers_;
  std::map<std::string, const onnx::TypeProto*> types_;
};

}  // namespace qtune::onnx_import::detail
