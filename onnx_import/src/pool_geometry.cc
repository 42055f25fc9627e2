#include "pool_geometry.h"

#include <string>

#include "layer_spec.h"

namespace qtune::onnx_import::detail {
namespace {

std::vector<std::int64_t> pool_ints(const onnx::NodeProto& node, const std::string& name, std::vector<std::int64_t> fallback) {
  const auto* a = find_attribute(node, name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::int64_t pool_int(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

// One spatial axis: output size, with the leading / trailing pads possibly set by auto_pad.
std::int64_t pool_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t dilation, bool ceil_mode,
                         const std::string& auto_pad, std::int64_t& pad_begin, std::int64_t& pad_end) {
  const std::int64_t extent = dilation * (kernel - 1) + 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const std::int64_t out = (in + stride - 1) / stride;
    const std::int64_t needed = std::max<std::int64_t>((out - 1) * stride + extent - in, 0);
    pad_begin = auto_pad == "SAME_UPPER" ? needed / 2 : (needed + 1) / 2;
    pad_end = needed - pad_begin;
    return out;
  }
  if (auto_pad == "VALID") pad_begin = pad_end = 0;
  const std::int64_t numerator = in + pad_begin + pad_end - extent;
  if (numerator < 0) return 0;
  if (!ceil_mode) return numerator / stride + 1;
  std::int64_t out = (numerator + stride - 1) / stride + 1;
  // The last window must start inside the input or its leading padding (ONNX's ceil_mode rule).
  if ((out - 1) * stride >= in + pad_begin) --out;
  return out;
}

}  // namespace

PoolGeometry pool_geometry(const onnx::NodeProto& node, const std::vector<std::int64_t>& input, const Where& where) {
  if (input.size() != 4)
    where.fail("X", "a pooling of a rank-" + std::to_string(input.size()) + " tensor: qtune pools 2-D images (N, C, H, W)");
  const auto kernel = pool_ints(node, "kernel_shape", {});
  if (kernel.size() != 2) where.fail("kernel_shape", "needs 2 values for a 2-D pooling");
  const auto strides = pool_ints(node, "strides", {1, 1});
  const auto dilations = pool_ints(node, "dilations", {1, 1});
  const auto pads = pool_ints(node, "pads", {0, 0, 0, 0});
  if (strides.size() != 2) where.fail("strides", "needs 2 values");
  if (dilations.size() != 2) where.fail("dilations", "needs 2 values");
  if (pads.size() != 4) where.fail("pads", "needs 4 values [top, left, bottom, right]");
  // Bounded above too, so that the window arithmetic below cannot overflow (the input's own
  // dimensions are at most 2^31, graph_shapes.cc).
  constexpr std::int64_t kLargest = std::int64_t{1} << 31;
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || kernel[i] > kLargest) where.fail("kernel_shape", "must be in [1, 2^31]");
    if (strides[i] < 1 || strides[i] > kLargest) where.fail("strides", "must be in [1, 2^31]");
    if (dilations[i] < 1 || dilations[i] > kLargest) where.fail("dilations", "must be in [1, 2^31]");
  }
  for (const std::int64_t p : pads) {
    if (p < 0 || p > kLargest) where.fail("pads", "must be in [0, 2^31]");
  }
  if (input[2] > kLargest || input[3] > kLargest) where.fail("X", "an image larger than 2^31 pixels a side");
  const auto* auto_pad_attribute = find_attribute(node, "auto_pad");
  const std::string auto_pad = auto_pad_attribute ? auto_pad_attribute->s() : "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    where.fail("auto_pad", "'" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  const bool ceil_mode = pool_int(node, "ceil_mode", 0) != 0;
  PoolGeometry g;
  PoolWindow& w = g.window;
  w.kernel_h = kernel[0];
  w.kernel_w = kernel[1];
  w.stride_h = strides[0];
  w.stride_w = strides[1];
  w.dilation_h = dilations[0];
  w.dilation_w = dilations[1];
  w.pad_top = pads[0];
  w.pad_left = pads[1];
  w.pad_bottom = pads[2];
  w.pad_right = pads[3];
  w.count_include_pad = pool_int(node, "count_include_pad", 0) != 0;
  g.out_h = pool_output_size(input[2], w.kernel_h, w.stride_h, w.dilation_h, ceil_mode, auto_pad, w.pad_top, w.pad_bottom);
  g.out_w = pool_output_size(input[3], w.kernel_w, w.stride_w, w.dilation_w, ceil_mode, auto_pad, w.pad_left, w.pad_right);
  if (g.out_h < 1 || g.out_w < 1)
    where.fail("kernel_shape", "the window does not fit the input [" + std::to_string(input[2]) + "x" +
                                   std::to_string(input[3]) + "] with its padding");
  return g;
}

}  // namespace qtune::onnx_import::detail
