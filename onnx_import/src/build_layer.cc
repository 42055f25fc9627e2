#include "build_layer.h"

#include <algorithm>

#include "qtune/runtime/workload_of.h"

namespace qtune::onnx_import::detail {
namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name,
                                         std::vector<std::int64_t> fallback) {
  const auto* a = find_attribute(node, name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::vector<std::int64_t> static_shape(const std::string& tensor, const GraphIndex& graph) {
  auto shape = graph.shape(tensor);
  if (!shape) throw Unsupported("the shape of '" + tensor + "' is not known after shape inference");
  return *shape;
}

// ONNX's requantization scale, computed as ONNX runtimes do: in float, x_scale * w_scale / y_scale.
RequantParams requant_params(const LayerSpec& spec) {
  std::vector<double> scales;
  for (const float w_scale : spec.w_scales) {
    const float scale = spec.x_scale * w_scale / spec.y_scale;
    scales.push_back(scale);
  }
  return RequantParams::make(RoundingMode::fp32, std::move(scales), spec.y_zero_point, spec.qmin, spec.qmax);
}

// u8 weights are held as s8: w - 128 and zero point - 128 leave (w - zero point) unchanged.
std::vector<std::int32_t> weight_zero_points(const LayerSpec& spec) {
  std::vector<std::int32_t> out = spec.w_zero_points;
  if (spec.w_unsigned) {
    for (auto& zp : out) zp -= 128;
  }
  return out;
}

void check_channels(const LayerSpec& spec, std::size_t count, std::int64_t channels, const std::string& field) {
  if (count != 1 && static_cast<std::int64_t>(count) != channels)
    spec.where.fail(field, "holds " + std::to_string(count) + " values, expected 1 or one per output channel (" +
                               std::to_string(channels) + ")");
}

void check_quantization(const LayerSpec& spec, std::int64_t channels) {
  check_channels(spec, spec.w_zero_points.size(), channels, "w_zero_point");
  if (spec.requantized) check_channels(spec, spec.w_scales.size(), channels, "w_scale");
  if (!spec.bias.empty() && static_cast<std::int64_t>(spec.bias.size()) != channels)
    spec.where.fail("B", "the bias holds " + std::to_string(spec.bias.size()) + " values, expected " +
                             std::to_string(channels));
}

// The quantization of a Conv2dProblem or GemmProblem (the fields they share) from the layer's.
template <typename Problem>
void fill_quantization(Problem& p, const LayerSpec& spec, std::int64_t channels) {
  check_quantization(spec, channels);
  p.a_type = spec.x_type;
  p.a_zero_point = spec.x_zero_point;
  p.b_zero_points = weight_zero_points(spec);
  p.has_bias = !spec.bias.empty();
  p.out_type = spec.requantized ? spec.y_type : DType::s32;
  if (spec.requantized) p.requant = requant_params(spec);
}

// The weights as stored (ONNX's layout), u8 ones shifted to s8.
std::vector<std::int8_t> signed_weights(const LayerSpec& spec) {
  const auto values = integer_values(*spec.w, spec.where, spec.w_field);
  const int shift = spec.w_unsigned ? 128 : 0;
  std::vector<std::int8_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<std::int8_t>(values[i] - shift);
  return out;
}

void fill_conv(ModelLayer& layer, const LayerSpec& spec, const GraphIndex& graph) {
  const auto x = static_shape(spec.x, graph);
  const std::vector<std::int64_t> w(spec.w->dims().begin(), spec.w->dims().end());
  if (x.size() != 4 || w.size() != 4)
    throw Unsupported("a " + std::to_string(x.size() - 2) + "-D convolution (input " + dims_text(x) +
                      "): qtune computes 2-D ones");
  const onnx::NodeProto& node = *spec.node;
  const auto* group = find_attribute(node, "group");
  const std::int64_t groups = group ? group->i() : 1;
  const auto kernel = ints_attribute(node, "kernel_shape", {w[2], w[3]});
  const auto strides = ints_attribute(node, "strides", {1, 1});
  const auto dilations = ints_attribute(node, "dilations", {1, 1});
  if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2)
    spec.where.fail("kernel_shape", "kernel_shape, strides and dilations need 2 values for a 2-D convolution");
  for (const auto* values : {&strides, &dilations}) {
    if ((*values)[0] < 1 || (*values)[1] < 1)
      spec.where.fail(values == &strides ? "strides" : "dilations", dims_text(*values) + " must be >= 1");
  }
  if (kernel[0] != w[2] || kernel[1] != w[3])
    spec.where.fail("kernel_shape", dims_text(kernel) + " does not match the weights' " + dims_text(w));
  if (groups < 1 || x[1] % groups != 0 || w[0] % groups != 0 || w[1] != x[1] / groups)
    spec.where.fail("group", std::to_string(groups) + " does not fit input channels " + std::to_string(x[1]) +
                                 " and weights " + dims_text(w));
  Conv2dProblem& p = layer.conv;
  p.batch = x[0];
  p.in_c = x[1];
  p.in_h = x[2];
  p.in_w = x[3];
  p.out_c = w[0];
  p.kernel_h = w[2];
  p.kernel_w = w[3];
  p.stride_h = strides[0];
  p.stride_w = strides[1];
  p.dilation_h = dilations[0];
  p.dilation_w = dilations[1];
  p.groups = groups;
  const auto* auto_pad = find_attribute(node, "auto_pad");
  const std::string mode = auto_pad ? auto_pad->s() : "NOTSET";
  if (mode == "NOTSET") {
    const auto pads = ints_attribute(node, "pads", {0, 0, 0, 0});  // [top, left, bottom, right]
    if (pads.size() != 4) spec.where.fail("pads", "needs 4 values for a 2-D convolution, got " + dims_text(pads));
    p.pad_top = pads[0];
    p.pad_left = pads[1];
    p.pad_bottom = pads[2];
    p.pad_right = pads[3];
  } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    // out = ceil(in / stride); the odd pixel of padding goes at the end (UPPER) or the start (LOWER).
    const auto split = [&](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t& begin,
                           std::int64_t& end) {
      const std::int64_t out = (in + s - 1) / s;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
      begin = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    };
    split(p.in_h, p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
    split(p.in_w, p.kernel_w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
  } else if (mode != "VALID") {
    spec.where.fail("auto_pad", "'" + mode + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  fill_quantization(p, spec, p.out_c);
  // OIHW -> HWIO.
  const auto values = signed_weights(spec);
  const std::int64_t per_group = w[1], kh = w[2], kw = w[3];
  layer.weights.resize(values.size());
  for (std::int64_t o = 0; o < p.out_c; ++o)
    for (std::int64_t i = 0; i < per_group; ++i)
      for (std::int64_t y = 0; y < kh; ++y)
        for (std::int64_t x_ = 0; x_ < kw; ++x_)
          layer.weights[static_cast<std::size_t>(((y * kw + x_) * per_group + i) * p.out_c + o)] =
              values[static_cast<std::size_t>(((o * per_group + i) * kh + y) * kw + x_)];
  layer.input_shape = x;
  layer.output_shape = {p.batch, p.out_c, p.out_h(), p.out_w()};
}

void fill_gemm(ModelLayer& layer, const LayerSpec& spec, const GraphIndex& graph) {
  const auto a = static_shape(spec.x, graph);
  const std::vector<std::int64_t> b(spec.w->dims().begin(), spec.w->dims().end());
  if (a.size() < 2 || b.size() < 2) throw Unsupported("a matrix product of vectors (" + dims_text(a) + " x " + dims_text(b) + ")");
  if (spec.trans_b && b.size() != 2) spec.where.fail(spec.w_field, "Gemm needs a 2-D B, got " + dims_text(b));
  const std::int64_t k = spec.trans_b ? b[1] : b[b.size() - 2];
  const std::int64_t n = spec.trans_b ? b[0] : b[b.size() - 1];
  if (a.back() != k) spec.where.fail(spec.w_field, "A " + dims_text(a) + " and B " + dims_text(b) + " do not multiply");
  std::int64_t m = 1, batches = 1;
  if (b.size() == 2) {
    for (std::size_t i = 0; i + 1 < a.size(); ++i) m *= a[i];
  } else {
    // Batched B: one K x N matrix per leading index, A with the same leading dimensions.
    if (a.size() != b.size() || !std::equal(b.begin(), b.end() - 2, a.begin()))
      throw Unsupported("a batched matrix product whose A " + dims_text(a) + " does not have B's " + dims_text(b) +
                        " leading dimensions");
    for (std::size_t i = 0; i + 2 < b.size(); ++i) batches *= b[i];
    m = a[a.size() - 2];
  }
  GemmProblem& p = layer.gemm;
  p.m = m;
  p.n = n;
  p.k = k;
  fill_quantization(p, spec, n);
  const auto values = signed_weights(spec);
  layer.weights.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    // Gemm's transB holds B as N x K; qtune reads K x N.
    const std::size_t row = i / static_cast<std::size_t>(n), col = i % static_cast<std::size_t>(n);
    const std::size_t from = spec.trans_b ? col * static_cast<std::size_t>(k) + row : i;
    layer.weights[i] = values[from];
  }
  layer.gemm_batches = batches;
  layer.input_shape = a;
  layer.output_shape = a;
  layer.output_shape.back() = n;
}

}  // namespace

ModelLayer build_layer(const LayerSpec& spec, const GraphIndex& graph) {
  ModelLayer layer;
  layer.op_type = spec.node->op_type();
  layer.input = spec.x;
  layer.output = spec.y;
  layer.op = spec.conv ? OpKind::conv2d : OpKind::gemm;
  layer.bias = spec.bias;
  try {
    if (spec.conv) {
      fill_conv(layer, spec, graph);
      layer.conv.validate();
      layer.workload = runtime::workload_of(layer.conv, 1);
    } else {
      fill_gemm(layer, spec, graph);
      layer.gemm.validate();
      layer.workload = runtime::workload_of(layer.gemm, 1);
    }
  } catch (const std::invalid_argument& e) {
    spec.where.fail("", std::string("not a layer qtune can compute: ") + e.what());
  }
  return layer;
}

}  // namespace qtune::onnx_import::detail
