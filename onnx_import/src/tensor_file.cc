#include "qtune/onnx_import/tensor_file.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "tensor_values.h"

namespace qtune::onnx_import {

namespace {

// The inverse of detail::data_type_name for the four types qtune's operators read and write.
int data_type_of(const std::string& type, const detail::Where& where) {
  if (type == "uint8") return onnx::TensorProto::UINT8;
  if (type == "int8") return onnx::TensorProto::INT8;
  if (type == "int32") return onnx::TensorProto::INT32;
  if (type == "float") return onnx::TensorProto::FLOAT;
  where.fail("type", "'" + type + "' is not one of uint8, int8, int32, float");
}

}  // namespace

TensorFile read_tensor_file(const std::string& path) {
  const onnx::TensorProto proto = detail::read_tensor_file(path);
  const detail::Where where{path};
  TensorFile out;
  out.name = proto.name();
  out.dims.assign(proto.dims().begin(), proto.dims().end());
  out.type = detail::data_type_name(proto.data_type());
  const auto copy = [&out](const auto& values) {
    out.bytes.resize(values.size() * sizeof(values[0]));
    if (!values.empty()) std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
  };
  if (proto.data_type() == onnx::TensorProto::FLOAT) {
    copy(detail::float_values(proto, where, "values"));
    return out;
  }
  if (proto.data_type() == onnx::TensorProto::INT64) {  // shapes and axes in ONNX's test data
    copy(detail::int64_values(proto, where, "values"));
    return out;
  }
  const std::vector<std::int32_t> values = detail::integer_values(proto, where, "values");
  if (proto.data_type() == onnx::TensorProto::INT32) {
    copy(values);
  } else {
    for (const std::int32_t v : values) out.bytes.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

void write_tensor_file(const std::string& path, const TensorFile& tensor) {
  const detail::Where where{path};
  onnx::TensorProto proto;
  proto.set_name(tensor.name);
  proto.set_data_type(data_type_of(tensor.type, where));
  for (const std::int64_t d : tensor.dims) proto.add_dims(d);
  // raw_data holds little-endian values, the byte order of the machines qtune runs on.
  proto.set_raw_data(tensor.bytes.data(), tensor.bytes.size());
  // The reader's own check, so that nothing is written that read_tensor_file would refuse.
  detail::element_count(proto, where, "values");

  const std::string temporary = path + ".tmp";
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    written = out && proto.SerializeToOstream(&out) && out.flush();
  }
  std::error_code renamed;
  if (written) std::filesystem::rename(temporary, path, renamed);
  if (!written || renamed) {
    std::remove(temporary.c_str());
    throw ModelError(path + ": cannot write the tensor file" + (renamed ? ": " + renamed.message() : ""));
  }
}

}  // namespace qtune::onnx_import
