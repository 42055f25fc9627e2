// Workload keys (the identity of a layer in the database and the logs), validation, and the
// concrete problems with deterministic quantization parameters that measurements run.
#include "qtune/search_space/workload.h"

#include "key_fields.h"
#include "qtune/kernels/limits.h"
#include "qtune/search_space/conv2d_geometry.h"
#include "qtune/search_space/key_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

namespace qtune {
namespace {

std::int64_t conv_out_extent(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b, std::int64_t kernel,
                             std::int64_t stride, std::int64_t dilation) {
  const std::int64_t effective = dilation * (kernel - 1) + 1;
  const std::int64_t span = in + pad_a + pad_b - effective;
  return span < 0 ? 0 : span / stride + 1;
}

std::string quant_fields(const QuantKind& q) {
  std::string s;
  s += "a=" + std::string(to_string(q.a_type));
  s += ";out=" + std::string(to_string(q.out_type));
  s += ";azp=" + std::string(q.a_zero_point_nonzero ? "1" : "0");
  s += ";bzp=" + std::string(q.b_zero_point_nonzero ? "1" : "0");
  s += ";q=" + std::string(q.per_channel ? "channel" : "tensor");
  s += ";round=" + std::string(to_string(q.rounding));
  if (q.relu) s += ";relu=1";
  return s;
}

std::int64_t parse_int_field(const std::string& key, const std::string& field, const std::string& text) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw std::invalid_argument("workload key '" + key + "': field '" + field + "' must be an integer, got '" +
                                text + "'");
  return value;
}

bool parse_flag_field(const std::string& key, const std::string& field, const std::string& text) {
  if (text == "1") return true;
  if (text == "0") return false;
  throw std::invalid_argument("workload key '" + key + "': field '" + field + "' must be 0 or 1, got '" + text + "'");
}

// The largest accumulator spread of the drawn problem, used to pick output scales that keep
// most outputs inside the clamp range (all-clamped outputs would hide wrong answers).
double accumulator_sigma(std::int64_t k) {
  // Uniform full-range u8/s8 activations minus their zero point and uniform int8 weights:
  // each product has a standard deviation of about 74 * 74; a sum of k of them grows as sqrt(k).
  return 74.0 * 74.0 * std::sqrt(static_cast<double>(k < 1 ? 1 : k));
}

struct DrawnQuant {
  std::int32_t a_zero_point = 0;
  std::vector<std::int32_t> b_zero_points{0};
  RequantParams requant;
};

DrawnQuant draw_quant(const QuantKind& q, std::int64_t channels, std::int64_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x51ED27u);
  auto uniform_int = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto nonzero = [&](int lo, int hi) {
    int v = 0;
    while (v == 0) v = uniform_int(lo, hi);
    return v;
  };
  DrawnQuant d;
  if (q.a_zero_point_nonzero) {
    d.a_zero_point = q.a_type == DType::u8 ? uniform_int(100, 156) : nonzero(-28, 28);
  }
  if (q.b_zero_point_nonzero) {
    const std::int64_t count = q.per_channel ? channels : 1;
    d.b_zero_points.assign(static_cast<std::size_t>(count), 0);
    for (auto& zp : d.b_zero_points) zp = nonzero(-12, 12);
  }
  if (q.out_type != DType::s32) {
    // Aim at an output standard deviation of ~40 steps, with a per-channel spread of 4x, so
    // outputs use the range and only the tails clamp.
    const double base = 40.0 / accumulator_sigma(k);
    const std::int64_t count = q.per_channel ? channels : 1;
    std::vector<double> scales(static_cast<std::size_t>(count));
    std::uniform_real_distribution<double> spread(-1.0, 1.0);
    for (auto& s : scales) s = base * std::exp2(spread(rng));
    const bool u8 = q.out_type == DType::u8;
    const std::int32_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
    // A fused ReLU's output starts at its zero point (TFLite: scale 6/255 and zero point 0 for
    // uint8, -128 for int8, after ReLU6).
    const std::int32_t zp = q.relu ? qmin : u8 ? uniform_int(110, 146) : uniform_int(-16, 16);
    d.requant = RequantParams::make(q.rounding, std::move(scales), zp, qmin, qmax);
  }
  return d;
}

void require_at_most_max_dimension(std::int64_t value, const char* field) {
  if (value > kMaxDimension)
    throw std::invalid_argument(std::string("workload: field '") + field + "' is " + std::to_string(value) +
                                ", more than the largest dimension qtune accepts, " + std::to_string(kMaxDimension));
}

void require_positive(std::int64_t value, const char* field) {
  if (value <= 0)
    throw std::invalid_argument(std::string("workload: field '") + field + "' must be positive, got " +
                                std::to_string(value));
  require_at_most_max_dimension(value, field);
}

void require_non_negative(std::int64_t value, const char* field) {
  if (value < 0)
    throw std::invalid_argument(std::string("workload: field '") + field + "' must be >= 0, got " +
                                std::to_string(value));
  require_at_most_max_dimension(value, field);
}

// The memory check of the kernels (qtune/kernels/limits.h) on the shape alone: a workload too big
// to measure is refused where it is read, naming the fields, not by every trial failing to allocate.
void require_layer_fits(std::uint64_t bytes, const std::string& shape_fields) {
  if (bytes > kMaxLayerBytes)
    throw std::invalid_argument("workload: fields " + shape_fields + ": the layer needs " + describe_bytes(bytes) +
                                " of tensors, more than the " + describe_bytes(kMaxLayerBytes) + " a layer may use");
}

// The geometry of a conv2d workload as a problem (quantization left at its defaults): what
// validate() measures against the size limits and conv2d_problem() completes.
Conv2dProblem conv2d_shape(const Workload& w) {
  Conv2dProblem p;
  copy_conv2d_geometry(w, p);
  return p;
}

}  // namespace

std::string_view to_string(OpKind op) {
  switch (op) {
    case OpKind::gemm: return "gemm";
    case OpKind::conv2d: return "conv2d";
  }
  return "?";
}

std::string Workload::key() const {
  std::ostringstream out;
  if (op == OpKind::gemm) {
    out << "gemm:m=" << m << ";n=" << n << ";k=" << k;
  } else {
    out << "conv2d:n=" << batch << ";h=" << in_h << ";w=" << in_w << ";c=" << in_c << ";oc=" << out_c
        << ";kh=" << kernel_h << ";kw=" << kernel_w << ";sh=" << stride_h << ";sw=" << stride_w
        << ";dh=" << dilation_h << ";dw=" << dilation_w << ";pad=" << pad_top << "," << pad_bottom << ","
        << pad_left << "," << pad_right << ";g=" << groups;
  }
  out << ";" << quant_fields(quant) << ";threads=" << threads;
  return out.str();
}

Workload Workload::parse_key(const std::string& key) {
  if (std::string problem = key_text_problem("workload key", key); !problem.empty())
    throw std::invalid_argument(problem);
  const auto colon = key.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("workload key '" + key + "': expected '<op>:field=value;...'");
  const std::string op_name = key.substr(0, colon);
  Workload w;
  std::vector<std::string> expected;
  if (op_name == "gemm") {
    w.op = OpKind::gemm;
    expected = {"m", "n", "k"};
  } else if (op_name == "conv2d") {
    w.op = OpKind::conv2d;
    expected = {"n", "h", "w", "c", "oc", "kh", "kw", "sh", "sw", "dh", "dw", "pad", "g"};
  } else {
    throw std::invalid_argument("workload key '" + key + "': unknown operator '" + op_name +
                                "' (known: gemm, conv2d)");
  }
  for (const char* f : {"a", "out", "azp", "bzp", "q", "round", "threads"}) expected.emplace_back(f);

  const auto fields =
      detail::parse_key_fields("workload key", key, key.substr(colon + 1), expected, " for " + op_name, {"relu"});
  auto integer = [&](const char* f) { return parse_int_field(key, f, fields.at(f)); };
  if (w.op == OpKind::gemm) {
    w.m = integer("m");
    w.n = integer("n");
    w.k = integer("k");
  } else {
    w.batch = integer("n");
    w.in_h = integer("h");
    w.in_w = integer("w");
    w.in_c = integer("c");
    w.out_c = integer("oc");
    w.kernel_h = integer("kh");
    w.kernel_w = integer("kw");
    w.stride_h = integer("sh");
    w.stride_w = integer("sw");
    w.dilation_h = integer("dh");
    w.dilation_w = integer("dw");
    w.groups = integer("g");
    const std::string& pad = fields.at("pad");
    std::int64_t* pads[4] = {&w.pad_top, &w.pad_bottom, &w.pad_left, &w.pad_right};
    std::size_t p = 0;
    for (int i = 0; i < 4; ++i) {
      const std::size_t comma = pad.find(',', p);
      const bool last = i == 3;
      if (last != (comma == std::string::npos))
        throw std::invalid_argument("workload key '" + key + "': field 'pad' must be top,bottom,left,right, got '" +
                                    pad + "'");
      *pads[i] = parse_int_field(key, "pad", pad.substr(p, last ? std::string::npos : comma - p));
      p = comma + 1;
    }
  }
  auto dtype = [&](const char* f) {
    auto t = parse_dtype(fields.at(f));
    if (!t) throw std::invalid_argument("workload key '" + key + "': field '" + f + "' must be u8, s8 or s32");
    return *t;
  };
  w.quant.a_type = dtype("a");
  w.quant.out_type = dtype("out");
  w.quant.a_zero_point_nonzero = parse_flag_field(key, "azp", fields.at("azp"));
  w.quant.b_zero_point_nonzero = parse_flag_field(key, "bzp", fields.at("bzp"));
  const std::string& q = fields.at("q");
  if (q != "channel" && q != "tensor")
    throw std::invalid_argument("workload key '" + key + "': field 'q' must be channel or tensor, got '" + q + "'");
  w.quant.per_channel = q == "channel";
  auto rounding = parse_rounding_mode(fields.at("round"));
  if (!rounding)
    throw std::invalid_argument("workload key '" + key + "': field 'round' must be one of tflite, upward, "
                                "tonearest, arm, fp32, got '" + fields.at("round") + "'");
  w.quant.rounding = *rounding;
  if (const auto relu = fields.find("relu"); relu != fields.end()) {
    w.quant.relu = parse_flag_field(key, "relu", relu->second);
  }
  const std::int64_t threads = integer("threads");
  if (threads < 1 || threads > kMaxWorkloadThreads)
    throw std::invalid_argument("workload key '" + key + "': field 'threads' must be in [1, " +
                                std::to_string(kMaxWorkloadThreads) + "]");
  w.threads = static_cast<int>(threads);
  try {
    w.validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("workload key '" + key + "': " + e.what());
  }
  return w;
}

std::string Workload::describe() const {
  std::ostringstream out;
  if (op == OpKind::gemm) {
    out << "gemm " << m << "x" << n << "x" << k;
  } else {
    out << (groups == in_c && groups > 1 ? "dwconv " : "conv ");
    if (batch != 1) out << batch << "x";
    out << in_h << "x" << in_w << "x" << in_c << " " << kernel_h << "x" << kernel_w << "/" << stride_h;
    if (stride_w != stride_h) out << "," << stride_w;
    if (dilation_h != 1 || dilation_w != 1) out << " d" << dilation_h << "," << dilation_w;
    if (groups > 1 && groups != in_c) out << " g" << groups;
    out << " ->" << out_c;
  }
  return out.str();
}

double Workload::gops() const {
  double macs = 0;
  if (op == OpKind::gemm) {
    macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  } else {
    const double oh = static_cast<double>(
        conv_out_extent(in_h, pad_top, pad_bottom, kernel_h, stride_h, dilation_h));
    const double ow = static_cast<double>(
        conv_out_extent(in_w, pad_left, pad_right, kernel_w, stride_w, dilation_w));
    const double k_per_group = static_cast<double>(kernel_h * kernel_w) * static_cast<double>(in_c / groups);
    macs = static_cast<double>(batch) * oh * ow * static_cast<double>(out_c) * k_per_group;
  }
  return 2.0 * macs / 1e9;
}

void Workload::validate() const {
  if (quant.a_type == DType::s32)
    throw std::invalid_argument("workload: field 'a' (activation type) must be u8 or s8");
  if (quant.relu && quant.out_type == DType::s32)
    throw std::invalid_argument("workload: field 'relu' needs a requantized output (u8 or s8), not s32");
  if (threads < 1 || threads > kMaxWorkloadThreads)
    throw std::invalid_argument("workload: field 'threads' must be in [1, " + std::to_string(kMaxWorkloadThreads) +
                                "], got " + std::to_string(threads));
  if (op == OpKind::gemm) {
    require_positive(m, "m");
    require_positive(n, "n");
    require_positive(k, "k");
    GemmProblem shape;
    shape.m = m;
    shape.n = n;
    shape.k = k;
    require_layer_fits(layer_bytes(shape), "'m', 'n', 'k'");
    return;
  }
  require_positive(batch, "n");
  require_positive(in_h, "h");
  require_positive(in_w, "w");
  require_positive(in_c, "c");
  require_positive(out_c, "oc");
  require_positive(kernel_h, "kh");
  require_positive(kernel_w, "kw");
  require_positive(stride_h, "sh");
  require_positive(stride_w, "sw");
  require_positive(dilation_h, "dh");
  require_positive(dilation_w, "dw");
  require_positive(groups, "g");
  require_non_negative(pad_top, "pad");
  require_non_negative(pad_bottom, "pad");
  require_non_negative(pad_left, "pad");
  require_non_negative(pad_right, "pad");
  if (in_c % groups != 0 || out_c % groups != 0)
    throw std::invalid_argument("workload: field 'g' (" + std::to_string(groups) + ") must divide c (" +
                                std::to_string(in_c) + ") and oc (" + std::to_string(out_c) + ")");
  if (conv_out_extent(in_h, pad_top, pad_bottom, kernel_h, stride_h, dilation_h) <= 0 ||
      conv_out_extent(in_w, pad_left, pad_right, kernel_w, stride_w, dilation_w) <= 0)
    throw std::invalid_argument("workload: field 'kh'/'kw': the kernel (with dilation) is larger than the padded input");
  const Conv2dProblem shape = conv2d_shape(*this);
  require_layer_fits(layer_bytes(shape), "'n', 'h', 'w', 'c', 'oc', 'kh', 'kw'");
}

GemmProblem Workload::gemm_problem(std::uint64_t seed) const {
  if (op != OpKind::gemm) throw std::invalid_argument("workload " + describe() + " is not a gemm");
  validate();
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_type = quant.a_type;
  p.out_type = quant.out_type;
  p.has_bias = true;
  DrawnQuant d = draw_quant(quant, n, k, seed);
  p.a_zero_point = d.a_zero_point;
  p.b_zero_points = std::move(d.b_zero_points);
  p.requant = std::move(d.requant);
  return p;
}

Conv2dProblem Workload::conv2d_problem(std::uint64_t seed) const {
  if (op != OpKind::conv2d) throw std::invalid_argument("workload " + describe() + " is not a conv2d");
  validate();
  Conv2dProblem p = conv2d_shape(*this);
  p.a_type = quant.a_type;
  p.out_type = quant.out_type;
  p.has_bias = true;
  DrawnQuant d = draw_quant(quant, out_c, kernel_h * kernel_w * (in_c / groups), seed);
  p.a_zero_point = d.a_zero_point;
  p.b_zero_points = std::move(d.b_zero_points);
  p.requant = std::move(d.requant);
  return p;
}

}  // namespace qtune
