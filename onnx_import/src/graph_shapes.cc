#include "graph_shapes.h"

#include <algorithm>
#include <map>
#include <set>

#include "layer_spec.h"
#include "model_proto.h"
#include "pool_geometry.h"

namespace qtune::onnx_import::detail {
namespace {

using onnx::NodeProto;
using onnx::TensorProto;
using Dims = std::vector<std::int64_t>;

struct Info {
  int type = TensorProto::UNDEFINED;
  Dims dims;
};

std::string shape_text(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

// The bounds every tensor and geometry attribute is held to, so that no shape arithmetic below
// (products, padded extents) can overflow int64: a model file is untrusted input.
constexpr std::int64_t kLargestDimension = std::int64_t{1} << 31;
constexpr std::int64_t kMostElements = std::int64_t{1} << 40;

// The product of dims already within kLargestDimension and kMostElements (check_dims).
std::int64_t shape_product(Dims::const_iterator begin, Dims::const_iterator end) {
  std::int64_t p = 1;
  for (auto it = begin; it != end; ++it) p *= *it;
  return p;
}

void check_dims(const Dims& dims, const Where& where, const std::string& field, const std::string& tensor) {
  std::int64_t elements = 1;
  for (const std::int64_t d : dims) {
    if (d > kLargestDimension)
      where.fail(field, "tensor '" + tensor + "' has a dimension of " + std::to_string(d) + ", more than qtune handles (2^31)");
    if (d > 0 && elements > kMostElements / d)
      where.fail(field, "tensor '" + tensor + "' " + shape_text(dims) + " has more than 2^40 elements");
    elements *= std::max<std::int64_t>(d, 1);
  }
}

void check_geometry(const Dims& values, std::int64_t lowest, const Where& where, const std::string& field) {
  for (const std::int64_t v : values)
    if (v < lowest || v > kLargestDimension)
      where.fail(field, std::to_string(v) + " is outside [" + std::to_string(lowest) + ", 2^31]");
}

std::int64_t shape_int(const NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

Dims shape_ints(const NodeProto& node, const std::string& name, Dims fallback) {
  const auto* a = find_attribute(node, name);
  return a ? Dims(a->ints().begin(), a->ints().end()) : fallback;
}

class Inference {
 public:
  Inference(onnx::GraphProto& graph, std::string path, std::int64_t opset) : graph_(graph), path_(std::move(path)), opset_(opset) {
    for (const auto& tensor : graph.initializer()) {
      known_[tensor.name()] = {tensor.data_type(), Dims(tensor.dims().begin(), tensor.dims().end())};
      constants_[tensor.name()] = &tensor;
    }
    for (const auto& input : graph.input()) {
      if (known_.count(input.name())) continue;
      Info info;
      info.type = input.type().tensor_type().elem_type();
      for (const auto& d : input.type().tensor_type().shape().dim()) info.dims.push_back(d.dim_value());
      known_[input.name()] = info;
    }
  }

  // False when an op outside the known set stops the inference (stop_at_unknown).
  bool run(bool stop_at_unknown) {
    for (int i = 0; i < graph_.node_size(); ++i) {
      const NodeProto& node = graph_.node(i);
      const Where where = node_where(path_, node, static_cast<std::size_t>(i));
      if (!infer(node, where)) {
        if (stop_at_unknown) {
          write();
          return false;
        }
        where.fail("", "qtune does not infer shapes through this op type");
      }
    }
    write();
    return true;
  }

 private:
  bool has(const NodeProto& node, int k) const { return k < node.input_size() && !node.input(k).empty(); }

  const Info& in(const NodeProto& node, int k, const Where& where) const {
    if (!has(node, k)) where.fail("input " + std::to_string(k), "missing");
    const auto it = known_.find(node.input(k));
    if (it == known_.end())
      where.fail("input " + std::to_string(k), "tensor '" + node.input(k) +
                                                   "' is not a graph input, an initializer or the output of an earlier node");
    check_dims(it->second.dims, where, "input " + std::to_string(k), node.input(k));
    return it->second;
  }

  int zero_point_type(const NodeProto& node, int k, int fallback, const Where& where) const {
    return has(node, k) ? in(node, k, where).type : fallback;
  }

  const TensorProto& constant(const NodeProto& node, int k, const std::string& field, const Where& where) const {
    const auto it = has(node, k) ? constants_.find(node.input(k)) : constants_.end();
    if (it == constants_.end()) where.fail(field, "must be a constant (an initializer or a Constant node)");
    return *it->second;
  }

  Dims conv_shape(const NodeProto& node, const Info& x, const Info& w, const Where& where) const {
    if (x.dims.size() != 4 || w.dims.size() != 4)
      where.fail("X", "a convolution of input " + shape_text(x.dims) + " and weights " + shape_text(w.dims) +
                          ": qtune computes 2-D convolutions");
    const Dims strides = shape_ints(node, "strides", {1, 1});
    const Dims dilations = shape_ints(node, "dilations", {1, 1});
    const Dims pads = shape_ints(node, "pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
      where.fail("strides", "strides and dilations need 2 values, pads 4");
    check_geometry(strides, 1, where, "strides");
    check_geometry(dilations, 1, where, "dilations");
    check_geometry(pads, 0, where, "pads");
    const auto* auto_pad = find_attribute(node, "auto_pad");
    const std::string mode = auto_pad ? auto_pad->s() : "NOTSET";
    Dims out = {x.dims[0], w.dims[0], 0, 0};
    for (int axis = 0; axis < 2; ++axis) {
      const std::int64_t in = x.dims[2 + axis], s = strides[axis], d = dilations[axis];
      if (s < 1 || d < 1) where.fail("strides", "strides and dilations must be >= 1");
      const std::int64_t extent = d * (w.dims[2 + axis] - 1) + 1;
      if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
        out[2 + axis] = (in + s - 1) / s;
      } else {
        const std::int64_t padded = mode == "VALID" ? in : in + pads[axis] + pads[axis + 2];
        out[2 + axis] = padded < extent ? 0 : (padded - extent) / s + 1;
      }
      if (out[2 + axis] < 1) where.fail("kernel_shape", "the kernel does not fit the input " + shape_text(x.dims));
    }
    return out;
  }

  Dims matmul_shape(const Info& a, const Info& b, const Where& where) const {
    if (a.dims.size() < 2 || b.dims.size() < 2)
      where.fail("A", "a matrix shape_product of " + shape_text(a.dims) + " and " + shape_text(b.dims) + ": qtune needs matrices");
    if (a.dims.back() != b.dims[b.dims.size() - 2])
      where.fail("B", "A " + shape_text(a.dims) + " and B " + shape_text(b.dims) + " do not multiply");
    const Dims a_batch(a.dims.begin(), a.dims.end() - 2), b_batch(b.dims.begin(), b.dims.end() - 2);
    Dims out = broadcast(a_batch, b_batch, where);
    out.push_back(a.dims[a.dims.size() - 2]);
    out.push_back(b.dims.back());
    return out;
  }

  Dims broadcast(const Dims& a, const Dims& b, const Where& where) const {
    Dims out(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
      const std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
      if (da != db && da != 1 && db != 1)
        where.fail("B", "shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast");
      out[i] = std::max(da, db);
    }
    return out;
  }

  std::int64_t axis_of(std::int64_t axis, std::size_t rank, const std::string& field, const Where& where) const {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) where.fail(field, std::to_string(axis) + " is outside a rank-" + std::to_string(r) + " tensor");
    return axis < 0 ? axis + r : axis;
  }

  Dims concat_shape(const std::vector<const Info*>& inputs, std::int64_t axis_attribute, const Where& where) const {
    if (inputs.empty()) where.fail("inputs", "nothing to concatenate");
    Dims out = inputs[0]->dims;
    const std::int64_t axis = axis_of(axis_attribute, out.size(), "axis", where);
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      const Dims& d = inputs[i]->dims;
      bool fits = d.size() == out.size();
      for (std::size_t k = 0; fits && k < d.size(); ++k) fits = static_cast<std::int64_t>(k) == axis || d[k] == out[k];
      if (!fits) where.fail("inputs", "input " + shape_text(d) + " does not fit " + shape_text(inputs[0]->dims) + " on axis " + std::to_string(axis));
      out[static_cast<std::size_t>(axis)] += d[static_cast<std::size_t>(axis)];
    }
    return out;
  }

  Dims axes_input(const NodeProto& node, const Where& where) const {
    if (opset_ < 13) return shape_ints(node, "axes", {});
    if (!has(node, 1)) return {};
    return int64_values(constant(node, 1, "axes", where), where, "axes");
  }

  Dims reshape(const NodeProto& node, const Info& x, const Where& where) const {
    const Dims target = int64_values(constant(node, 1, "shape", where), where, "shape");
    const bool allow_zero = shape_int(node, "allowzero", 0) != 0;
    Dims out;
    std::int64_t known = 1, infer_at = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      std::int64_t d = target[i];
      if (d == 0 && !allow_zero) {
        if (i >= x.dims.size()) where.fail("shape", "0 at position " + std::to_string(i) + " copies a dimension the input does not have");
        d = x.dims[i];
      }
      if (d == -1) {
        if (infer_at >= 0) where.fail("shape", "more than one -1");
        infer_at = static_cast<std::int64_t>(i);
        out.push_back(1);
        continue;
      }
      if (d < 1) where.fail("shape", "dimension " + std::to_string(d) + " at position " + std::to_string(i));
      if (__builtin_mul_overflow(known, d, &known)) where.fail("shape", shape_text(target) + " has more elements than int64 holds");
      out.push_back(d);
    }
    const std::int64_t total = shape_product(x.dims.begin(), x.dims.end());
    if (infer_at >= 0) {
      if (total % known != 0) where.fail("shape", shape_text(target) + " does not fit " + shape_text(x.dims));
      out[static_cast<std::size_t>(infer_at)] = total / known;
    } else if (known != total) {
      where.fail("shape", shape_text(target) + " holds " + std::to_string(known) + " elements, the input " + shape_text(x.dims) + " " + std::to_string(total));
    }
    return out;
  }

  Dims squeeze(const NodeProto& node, const Info& x, const Where& where) const {
    Dims axes = axes_input(node, where);
    std::set<std::int64_t> drop;
    for (const std::int64_t a : axes) {
      const std::int64_t axis = axis_of(a, x.dims.size(), "axes", where);
      if (x.dims[static_cast<std::size_t>(axis)] != 1) where.fail("axes", "axis " + std::to_string(axis) + " of " + shape_text(x.dims) + " is not 1");
      drop.insert(axis);
    }
    Dims out;
    for (std::size_t i = 0; i < x.dims.size(); ++i) {
      const bool squeezed = axes.empty() ? x.dims[i] == 1 : drop.count(static_cast<std::int64_t>(i)) > 0;
      if (!squeezed) out.push_back(x.dims[i]);
    }
    return out;
  }

  Dims unsqueeze(const NodeProto& node, const Info& x, const Where& where) const {
    const Dims axes = axes_input(node, where);
    const std::size_t rank = x.dims.size() + axes.size();
    std::set<std::int64_t> add;
    for (const std::int64_t a : axes) {
      if (!add.insert(axis_of(a, rank, "axes", where)).second) where.fail("axes", "an axis given twice");
    }
    Dims out;
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i) out.push_back(add.count(static_cast<std::int64_t>(i)) ? 1 : x.dims[next++]);
    return out;
  }

  Dims transpose(const NodeProto& node, const Info& x, const Where& where) const {
    Dims perm = shape_ints(node, "perm", {});
    if (perm.empty()) {
      for (std::size_t i = x.dims.size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
    }
    if (perm.size() != x.dims.size()) where.fail("perm", "needs " + std::to_string(x.dims.size()) + " values");
    Dims out;
    std::set<std::int64_t> seen;
    for (const std::int64_t p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(x.dims.size()) || !seen.insert(p).second)
        where.fail("perm", shape_text(perm) + " is not a permutation of the axes");
      out.push_back(x.dims[static_cast<std::size_t>(p)]);
    }
    return out;
  }

  // The outputs of one node; false for an op type outside the set.
  bool infer(const NodeProto& node, const Where& where) {
    const std::string& op = node.op_type();
    const bool microsoft = node.domain() == "com.microsoft";
    if (!microsoft && !node.domain().empty() && node.domain() != "ai.onnx") return false;
    Info out;
    const auto same_as_input = [&](int type) {
      out = in(node, 0, where);
      if (type != TensorProto::UNDEFINED) out.type = type;
    };
    if (microsoft) {
      if (op == "QLinearAdd" || op == "QLinearMul") {
        out = {zero_point_type(node, 7, in(node, 0, where).type, where), broadcast(in(node, 0, where).dims, in(node, 3, where).dims, where)};
      } else if (op == "QLinearConcat") {
        std::vector<const Info*> inputs;
        for (int k = 2; k < node.input_size(); k += 3) inputs.push_back(&in(node, k, where));
        out = {zero_point_type(node, 1, TensorProto::UINT8, where), concat_shape(inputs, shape_int(node, "axis", 1), where)};
      } else if (op == "QLinearAveragePool") {
        const Info& x = in(node, 0, where);
        if (shape_int(node, "channels_last", 0) != 0) where.fail("channels_last", "1 (NHWC) is not read; qtune's models are NCHW");
        const auto g = pool_geometry(node, x.dims, where);
        out = {zero_point_type(node, 4, x.type, where), {x.dims[0], x.dims[1], g.out_h, g.out_w}};
      } else if (op == "QLinearGlobalAveragePool") {
        const Info& x = in(node, 0, where);
        if (shape_int(node, "channels_last", 0) != 0) where.fail("channels_last", "1 (NHWC) is not read; qtune's models are NCHW");
        if (x.dims.size() != 4) where.fail("X", "a global pooling of " + shape_text(x.dims) + ": qtune pools 2-D images");
        out = {zero_point_type(node, 4, x.type, where), {x.dims[0], x.dims[1], 1, 1}};
      } else if (op == "QLinearSoftmax") {
        same_as_input(zero_point_type(node, 4, in(node, 0, where).type, where));
      } else if (op == "QGemm") {
        const Info& a = in(node, 0, where);
        const Info& b = in(node, 3, where);
        if (a.dims.size() != 2 || b.dims.size() != 2) where.fail("A", "QGemm needs 2-D A and B");
        const bool ta = shape_int(node, "transA", 0) != 0, tb = shape_int(node, "transB", 0) != 0;
        const int type = has(node, 8) ? zero_point_type(node, 8, TensorProto::UINT8, where) : has(node, 7) ? TensorProto::UINT8 : TensorProto::FLOAT;
        if (a.dims[ta ? 0 : 1] != b.dims[tb ? 1 : 0]) where.fail("B", "A " + shape_text(a.dims) + " and B " + shape_text(b.dims) + " do not multiply");
        out = {type, {a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}};
      } else {
        return false;
      }
    } else if (op == "QuantizeLinear") {
      same_as_input(zero_point_type(node, 2, TensorProto::UINT8, where));
    } else if (op == "DequantizeLinear") {
      same_as_input(TensorProto::FLOAT);
    } else if (op == "QLinearConv") {
      out = {zero_point_type(node, 7, TensorProto::UINT8, where), conv_shape(node, in(node, 0, where), in(node, 3, where), where)};
    } else if (op == "Conv" || op == "ConvInteger") {
      out = {op == "Conv" ? in(node, 0, where).type : int(TensorProto::INT32), conv_shape(node, in(node, 0, where), in(node, 1, where), where)};
    } else if (op == "QLinearMatMul") {
      out = {zero_point_type(node, 7, TensorProto::UINT8, where), matmul_shape(in(node, 0, where), in(node, 3, where), where)};
    } else if (op == "MatMul" || op == "MatMulInteger") {
      out = {op == "MatMul" ? in(node, 0, where).type : int(TensorProto::INT32), matmul_shape(in(node, 0, where), in(node, 1, where), where)};
    } else if (op == "Gemm") {
      const Info& a = in(node, 0, where);
      const Info& b = in(node, 1, where);
      if (a.dims.size() != 2 || b.dims.size() != 2) where.fail("A", "Gemm needs 2-D A and B");
      const bool ta = shape_int(node, "transA", 0) != 0, tb = shape_int(node, "transB", 0) != 0;
      if (a.dims[ta ? 0 : 1] != b.dims[tb ? 1 : 0]) where.fail("B", "A " + shape_text(a.dims) + " and B " + shape_text(b.dims) + " do not multiply");
      out = {a.type, {a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}};
    } else if (op == "Add") {
      out = {in(node, 0, where).type, broadcast(in(node, 0, where).dims, in(node, 1, where).dims, where)};
    } else if (op == "Concat") {
      std::vector<const Info*> inputs;
      for (int k = 0; k < node.input_size(); ++k) inputs.push_back(&in(node, k, where));
      out = {inputs.at(0)->type, concat_shape(inputs, shape_int(node, "axis", 1), where)};
    } else if (op == "MaxPool" || op == "AveragePool") {
      const Info& x = in(node, 0, where);
      const auto g = pool_geometry(node, x.dims, where);
      out = {x.type, {x.dims[0], x.dims[1], g.out_h, g.out_w}};
    } else if (op == "GlobalAveragePool") {
      const Info& x = in(node, 0, where);
      if (x.dims.size() != 4) where.fail("X", "a global pooling of " + shape_text(x.dims) + ": qtune pools 2-D images");
      out = {x.type, {x.dims[0], x.dims[1], 1, 1}};
    } else if (op == "Reshape") {
      out = {in(node, 0, where).type, reshape(node, in(node, 0, where), where)};
    } else if (op == "Flatten") {
      const Info& x = in(node, 0, where);
      const std::int64_t axis = shape_int(node, "axis", 1);
      const std::int64_t a = axis == static_cast<std::int64_t>(x.dims.size()) ? axis : axis_of(axis, x.dims.size(), "axis", where);
      out = {x.type, {shape_product(x.dims.begin(), x.dims.begin() + a), shape_product(x.dims.begin() + a, x.dims.end())}};
    } else if (op == "Squeeze") {
      out = {in(node, 0, where).type, squeeze(node, in(node, 0, where), where)};
    } else if (op == "Unsqueeze") {
      out = {in(node, 0, where).type, unsqueeze(node, in(node, 0, where), where)};
    } else if (op == "Transpose") {
      out = {in(node, 0, where).type, transpose(node, in(node, 0, where), where)};
    } else if (op == "Relu" || op == "Clip" || op == "Softmax" || op == "Identity") {
      same_as_input(TensorProto::UNDEFINED);
    } else if (op == "Constant") {
      const auto* value = find_attribute(node, "value");
      if (!value || !value->has_t()) where.fail("value", "qtune reads Constant nodes holding a tensor");
      constants_[node.output(0)] = &value->t();
      out = {value->t().data_type(), Dims(value->t().dims().begin(), value->t().dims().end())};
    } else {
      return false;
    }
    if (node.output_size() < 1 || node.output(0).empty()) where.fail("output 0", "missing");
    for (int k = 1; k < node.output_size(); ++k) {
      if (!node.output(k).empty())
        where.fail("output " + std::to_string(k), "'" + node.output(k) + "' is a second output, which qtune does not compute");
    }
    for (const std::int64_t d : out.dims) {
      if (d < 1) where.fail("output", "a tensor " + shape_text(out.dims) + " with an empty dimension");
    }
    check_dims(out.dims, where, "output 0", node.output(0));
    if (!known_.emplace(node.output(0), out).second) where.fail("output 0", "tensor '" + node.output(0) + "' is written twice");
    order_.push_back(node.output(0));
    return true;
  }

  void write() {
    graph_.clear_value_info();
    const auto fill = [](onnx::TypeProto* type, const Info& info) {
      auto* tensor = type->mutable_tensor_type();
      tensor->set_elem_type(info.type);
      auto* shape = tensor->mutable_shape();
      shape->clear_dim();
      for (const std::int64_t d : info.dims) shape->add_dim()->set_dim_value(d);
    };
    for (const std::string& name : order_) {
      auto* value = graph_.add_value_info();
      value->set_name(name);
      fill(value->mutable_type(), known_.at(name));
    }
    for (auto& output : *graph_.mutable_output()) {
      const auto it = known_.find(output.name());
      if (it != known_.end()) fill(output.mutable_type(), it->second);
    }
  }

  onnx::GraphProto& graph_;
  std::string path_;
  std::int64_t opset_;
  std::map<std::string, Info> known_;
  std::map<std::string, const TensorProto*> constants_;
  std::vector<std::string> order_;
};

}  // namespace

bool infer_graph_shapes(onnx::GraphProto& graph, const std::string& path, std::int64_t opset, bool stop_at_unknown) {
  return Inference(graph, path, opset).run(stop_at_unknown);
}

}  // namespace qtune::onnx_import::detail
