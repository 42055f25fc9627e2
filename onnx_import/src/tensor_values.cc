#include "tensor_values.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace qtune::onnx_import::detail {

using onnx::TensorProto;

void Where::fail(const std::string& field, const std::string& problem) const {
  throw ModelError(node + (field.empty() ? "" : ", field '" + field + "'") + ": " + problem);
}

std::string data_type_name(int data_type) {
  switch (data_type) {
    case TensorProto::FLOAT: return "float";
    case TensorProto::UINT8: return "uint8";
    case TensorProto::INT8: return "int8";
    case TensorProto::INT32: return "int32";
    case TensorProto::INT64: return "int64";
    case TensorProto::FLOAT16: return "float16";
    case TensorProto::DOUBLE: return "double";
    default: return "data type " + std::to_string(data_type);
  }
}

namespace {

std::size_t element_bytes(int data_type) {
  switch (data_type) {
    case TensorProto::UINT8:
    case TensorProto::INT8: return 1;
    case TensorProto::INT32:
    case TensorProto::FLOAT: return 4;
    case TensorProto::INT64: return 8;
    default: return 0;
  }
}

// The values' own count (raw bytes or the typed field the type is stored in).
std::int64_t stored_count(const TensorProto& t) {
  if (t.has_raw_data()) {
    const std::size_t bytes = element_bytes(t.data_type());
    return bytes == 0 ? -1 : static_cast<std::int64_t>(t.raw_data().size() / bytes);
  }
  switch (t.data_type()) {
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::INT32: return t.int32_data_size();
    case TensorProto::FLOAT: return t.float_data_size();
    case TensorProto::INT64: return t.int64_data_size();
    default: return -1;
  }
}

// Little-endian raw bytes as values of T (the machines qtune runs on are little-endian).
template <typename T>
std::vector<T> raw_values(const TensorProto& t, std::int64_t count) {
  std::vector<T> out(static_cast<std::size_t>(count));
  if (!out.empty()) std::memcpy(out.data(), t.raw_data().data(), out.size() * sizeof(T));
  return out;
}

void check_type(const TensorProto& t, std::initializer_list<int> allowed, const Where& where, const std::string& field) {
  for (int type : allowed) {
    if (t.data_type() == type) return;
  }
  std::string names;
  for (int type : allowed) names += (names.empty() ? "" : " or ") + data_type_name(type);
  where.fail(field, "tensor '" + t.name() + "' is " + data_type_name(t.data_type()) + ", expected " + names);
}

}  // namespace

std::int64_t element_count(const TensorProto& t, const Where& where, const std::string& field) {
  if (t.data_location() == TensorProto::EXTERNAL)
    where.fail(field, "tensor '" + t.name() + "' keeps its values in an external file, which is not read");
  std::int64_t count = 1;
  for (const std::int64_t d : t.dims()) {
    if (d < 0) where.fail(field, "tensor '" + t.name() + "' has a negative dimension " + std::to_string(d));
    if (d != 0 && count > std::numeric_limits<std::int32_t>::max() / d)
      where.fail(field, "tensor '" + t.name() + "' has more than 2^31 elements");
    count *= d;
  }
  const std::int64_t stored = stored_count(t);
  const std::size_t bytes = element_bytes(t.data_type());
  if (stored != count || (t.has_raw_data() && t.raw_data().size() != static_cast<std::size_t>(count) * bytes)) {
    std::ostringstream dims;
    for (int i = 0; i < t.dims_size(); ++i) dims << (i ? "," : "") << t.dims(i);
    where.fail(field, data_type_name(t.data_type()) + " tensor '" + t.name() + "' of dims [" + dims.str() + "] needs " +
                          std::to_string(count) + " values, it holds " +
                          (t.has_raw_data() ? std::to_string(t.raw_data().size()) + " bytes" : std::to_string(stored)));
  }
  return count;
}

std::vector<std::int32_t> integer_values(const TensorProto& t, const Where& where, const std::string& field) {
  check_type(t, {TensorProto::UINT8, TensorProto::INT8, TensorProto::INT32}, where, field);
  const std::int64_t count = element_count(t, where, field);
  if (t.has_raw_data()) {
    switch (t.data_type()) {
      case TensorProto::UINT8: {
        const auto v = raw_values<std::uint8_t>(t, count);
        return {v.begin(), v.end()};
      }
      case TensorProto::INT8: {
        const auto v = raw_values<std::int8_t>(t, count);
        return {v.begin(), v.end()};
      }
      default: return raw_values<std::int32_t>(t, count);
    }
  }
  std::vector<std::int32_t> out(t.int32_data().begin(), t.int32_data().end());
  const std::int32_t lo = t.data_type() == TensorProto::UINT8 ? 0 : t.data_type() == TensorProto::INT8 ? -128 : INT32_MIN;
  const std::int32_t hi = t.data_type() == TensorProto::UINT8 ? 255 : t.data_type() == TensorProto::INT8 ? 127 : INT32_MAX;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] < lo || out[i] > hi)
      where.fail(field, "tensor '" + t.name() + "' value [" + std::to_string(i) + "] = " + std::to_string(out[i]) +
                            " is outside " + data_type_name(t.data_type()));
  }
  return out;
}

std::vector<float> float_values(const TensorProto& t, const Where& where, const std::string& field) {
  check_type(t, {TensorProto::FLOAT}, where, field);
  const std::int64_t count = element_count(t, where, field);
  if (t.has_raw_data()) return raw_values<float>(t, count);
  return {t.float_data().begin(), t.float_data().end()};
}

std::vector<std::int64_t> int64_values(const TensorProto& t, const Where& where, const std::string& field) {
  check_type(t, {TensorProto::INT64}, where, field);
  const std::int64_t count = element_count(t, where, field);
  if (t.has_raw_data()) return raw_values<std::int64_t>(t, count);
  return {t.int64_data().begin(), t.int64_data().end()};
}

TensorProto read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the tensor file");
  TensorProto tensor;
  if (!tensor.ParseFromIstream(&in)) throw ModelError(path + ": not a serialized ONNX TensorProto (or truncated)");
  return tensor;
}

}  // namespace qtune::onnx_import::detail
