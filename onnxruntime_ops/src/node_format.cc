#include "qtune/onnxruntime_ops/node_format.h"

#include <stdexcept>

#include "qtune/runtime/workload_of.h"

namespace qtune::onnxruntime_ops {
namespace {

template <typename Problem>
NodeAttributes attributes_of(const Problem& problem, int threads, const std::string& config_key) {
  problem.validate();
  if (problem.out_type == DType::s32) throw std::invalid_argument("an int32 output is not written as a qtune node");
  const RequantParams& r = problem.requant;
  if (r.mode != RoundingMode::fp32)
    throw std::invalid_argument("rounding " + std::string(to_string(r.mode)) +
                                ": a qtune node holds ONNX's float scales, only the fp32 rounding is exact");
  NodeAttributes a;
  a.workload = runtime::workload_of(problem, threads).key();
  a.config = config_key;
  a.x_zero_point = problem.a_zero_point;
  a.w_zero_points.assign(problem.b_zero_points.begin(), problem.b_zero_points.end());
  a.scales = r.scales_f32;
  a.y_zero_point = r.output_zero_point;
  a.qmin = r.qmin;
  a.qmax = r.qmax;
  return a;
}

std::int32_t int32_attribute(std::int64_t value, const char* name) {
  if (value < -(std::int64_t{1} << 31) || value >= (std::int64_t{1} << 31))
    throw std::invalid_argument(std::string("attribute ") + name + " = " + std::to_string(value) + " is out of range");
  return static_cast<std::int32_t>(value);
}

// The values every problem shares, then the check that they make the kind the key names.
template <typename Problem>
void fill_values(Problem& p, const Workload& w, const NodeAttributes& a, bool has_bias) {
  p.a_type = w.quant.a_type;
  p.out_type = w.quant.out_type;
  p.a_zero_point = int32_attribute(a.x_zero_point, "x_zero_point");
  p.b_zero_points.clear();
  for (const std::int64_t zp : a.w_zero_points) p.b_zero_points.push_back(int32_attribute(zp, "w_zero_points"));
  p.has_bias = has_bias;
  if (a.scales.empty()) throw std::invalid_argument("attribute scales is empty");
  std::vector<double> scales(a.scales.begin(), a.scales.end());
  try {
    p.requant = RequantParams::make(RoundingMode::fp32, std::move(scales), int32_attribute(a.y_zero_point, "y_zero_point"),
                                    int32_attribute(a.qmin, "qmin"), int32_attribute(a.qmax, "qmax"));
    p.validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("the attributes do not make a valid layer: ") + e.what());
  }
  const std::string made = runtime::lookup_key(runtime::workload_of(p, w.threads));
  if (made != runtime::lookup_key(w))
    throw std::invalid_argument("the attributes do not match attribute workload: they make " + made + ", the key is " +
                                runtime::lookup_key(w));
}

Workload parse_workload(const NodeAttributes& a, OpKind op) {
  Workload w;
  try {
    w = Workload::parse_key(a.workload);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("attribute workload '" + a.workload + "': " + e.what());
  }
  if (w.op != op)
    throw std::invalid_argument("attribute workload '" + a.workload + "' is a " + std::string(to_string(w.op)) +
                                ", this node a " + std::string(to_string(op)));
  return w;
}

}  // namespace

NodeAttributes node_attributes(const Conv2dProblem& problem, int threads, const std::string& config_key) {
  return attributes_of(problem, threads, config_key);
}

NodeAttributes node_attributes(const GemmProblem& problem, int threads, const std::string& config_key) {
  return attributes_of(problem, threads, config_key);
}

// The workload's problem has its shape and quantization values drawn to match its kind; the
// node's own values replace them.
Conv2dProblem conv2d_problem(const NodeAttributes& attributes, bool has_bias) {
  const Workload w = parse_workload(attributes, OpKind::conv2d);
  Conv2dProblem p = w.conv2d_problem();
  fill_values(p, w, attributes, has_bias);
  return p;
}

GemmProblem gemm_problem(const NodeAttributes& attributes, bool has_bias) {
  const Workload w = parse_workload(attributes, OpKind::gemm);
  GemmProblem p = w.gemm_problem();
  fill_values(p, w, attributes, has_bias);
  return p;
}

std::int64_t pool_output_size(std::int64_t input, std::int64_t kernel, std::int64_t stride, std::int64_t pad_begin,
                              std::int64_t pad_end, bool ceil_mode) {
  const std::int64_t span = input + pad_begin + pad_end - kernel;
  if (span < 0 || stride < 1) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= input + pad_begin) --out;
  return out;
}

std::vector<std::int64_t> conv2d_input_shape(const Conv2dProblem& p) { return {p.batch, p.in_c, p.in_h, p.in_w}; }

std::vector<std::int64_t> conv2d_output_shape(const Conv2dProblem& p) { return {p.batch, p.out_c, p.out_h(), p.out_w()}; }

std::vector<std::int64_t> conv2d_weight_shape(const Conv2dProblem& p) {
  return {p.kernel_h, p.kernel_w, p.in_c / p.groups, p.out_c};
}

}  // namespace qtune::onnxruntime_ops
