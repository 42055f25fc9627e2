// Writing ONNX nodes (the rewrites of onnxruntime_rewrite.cc): attributes of each kind and the
// layout Transposes around an NHWC node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace qtune::onnx_import::detail {

inline onnx::AttributeProto& add_attribute(onnx::NodeProto& node, const std::string& name,
                                           onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(type);
  return a;
}

inline void set_int(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  add_attribute(node, name, onnx::AttributeProto::INT).set_i(value);
}

inline void set_float(onnx::NodeProto& node, const std::string& name, float value) {
  add_attribute(node, name, onnx::AttributeProto::FLOAT).set_f(value);
}

inline void set_string(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  add_attribute(node, name, onnx::AttributeProto::STRING).set_s(value);
}

inline void set_ints(onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& values) {
  onnx::AttributeProto& a = add_attribute(node, name, onnx::AttributeProto::INTS);
  for (const std::int64_t v : values) a.add_ints(v);
}

inline void set_floats(onnx::NodeProto& node, const std::string& name, const std::vector<float>& values) {
  onnx::AttributeProto& a = add_attribute(node, name, onnx::AttributeProto::FLOATS);
  for (const float v : values) a.add_floats(v);
}

// NCHW -> NHWC and back.
inline const std::vector<std::int64_t> kToNhwc{0, 2, 3, 1};
inline const std::vector<std::int64_t> kToNchw{0, 3, 1, 2};

inline onnx::NodeProto transpose(const std::string& in, const std::string& out, const std::string& name,
                                 const std::vector<std::int64_t>& perm) {
  onnx::NodeProto node;
  node.set_op_type("Transpose");
  node.set_name(name);
  node.add_input(in);
  node.add_output(out);
  set_ints(node, "perm", perm);
  return node;
}

}  // namespace qtune::onnx_import::detail
