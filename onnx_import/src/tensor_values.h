// Values of ONNX tensors (initializers and serialized TensorProto files) as plain vectors, with
// every size and type checked: a model is outside input, so nothing is trusted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "qtune/onnx_import/model.h"

namespace qtune::onnx_import::detail {

// Names the node and the field of every error: "node 'conv1' (QLinearConv), field 'w_scale': ...".
struct Where {
  std::string node;  // "node 'conv1' (QLinearConv)"
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
};

// "uint8", "float", ... as ONNX's TensorProto.DataType spells them.
std::string data_type_name(int data_type);

// The number of elements its dims give (1 for a scalar), checked against the values it holds.
std::int64_t element_count(const onnx::TensorProto& tensor, const Where& where, const std::string& field);

// uint8, int8 and int32 tensors as int32 values; float tensors as floats.
std::vector<std::int32_t> integer_values(const onnx::TensorProto& tensor, const Where& where, const std::string& field);
std::vector<float> float_values(const onnx::TensorProto& tensor, const Where& where, const std::string& field);
std::vector<std::int64_t> int64_values(const onnx::TensorProto& tensor, const Where& where, const std::string& field);

// A serialized TensorProto (ONNX's test data input_N.pb / output_N.pb); ModelError naming the file.
onnx::TensorProto read_tensor_file(const std::string& path);

}  // namespace qtune::onnx_import::detail
