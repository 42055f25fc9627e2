#include "qtune/onnx_import/tensor_file.h"

#include <cstring>

#include "tensor_values.h"

namespace qtune::onnx_import {

TensorFile read_tensor_file(const std::string& path) {
  const onnx::TensorProto proto = detail::read_tensor_file(path);
  const detail::Where where{path};
  TensorFile out;
  out.name = proto.name();
  out.dims.assign(proto.dims().begin(), proto.dims().end());
  out.type = detail::data_type_name(proto.data_type());
  if (proto.data_type() == onnx::TensorProto::FLOAT) {
    const std::vector<float> values = detail::float_values(proto, where, "values");
    out.bytes.resize(values.size() * sizeof(float));
    std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
    return out;
  }
  const std::vector<std::int32_t> values = detail::integer_values(proto, where, "values");
  if (proto.data_type() == onnx::TensorProto::INT32) {
    out.bytes.resize(values.size() * sizeof(std::int32_t));
    std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
  } else {
    for (const std::int32_t v : values) out.bytes.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

}  // namespace qtune::onnx_import
