#include "qtune/onnx_import/layer_execution.h"

#include <cstring>
#include <stdexcept>

namespace qtune::onnx_import {
namespace {

std::size_t output_element_bytes(const ModelLayer& layer) {
  const DType out = layer.op == OpKind::conv2d ? layer.conv.out_type : layer.gemm.out_type;
  return out == DType::s32 ? 4 : 1;
}

// Moves element (a, b, c, d) of an [A][B][C][D] array to (a, c, d, b) (to_channels_last) or back.
std::vector<std::uint8_t> permute(const std::vector<std::uint8_t>& from, std::int64_t n, std::int64_t c, std::int64_t h,
                                  std::int64_t w, std::size_t bytes, bool to_channels_last) {
  std::vector<std::uint8_t> to(from.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
          const auto planar = static_cast<std::size_t>(((i * c + ch) * h + y) * w + x);
          const auto interleaved = static_cast<std::size_t>(((i * h + y) * w + x) * c + ch);
          const std::size_t src = to_channels_last ? planar : interleaved;
          const std::size_t dst = to_channels_last ? interleaved : planar;
          std::memcpy(&to[dst * bytes], &from[src * bytes], bytes);
        }
  return to;
}

}  // namespace

std::vector<std::uint8_t> nchw_to_nhwc(const std::vector<std::uint8_t>& nchw, std::int64_t n, std::int64_t c,
                                       std::int64_t h, std::int64_t w, std::size_t element_bytes) {
  return permute(nchw, n, c, h, w, element_bytes, true);
}

std::vector<std::uint8_t> nhwc_to_nchw(const std::vector<std::uint8_t>& nhwc, std::int64_t n, std::int64_t c,
                                       std::int64_t h, std::int64_t w, std::size_t element_bytes) {
  return permute(nhwc, n, c, h, w, element_bytes, false);
}

std::vector<std::uint8_t> run_layer(const runtime::Runtime& runtime, const ModelLayer& layer,
                                    const std::vector<std::uint8_t>& input, int threads) {
  std::size_t expected = 1;
  for (const std::int64_t d : layer.input_shape) expected *= static_cast<std::size_t>(d);
  if (input.size() != expected)
    throw std::invalid_argument("layer " + layer.name + ": input of " + std::to_string(input.size()) +
                                " elements, its shape needs " + std::to_string(expected));
  const std::size_t out_bytes = output_element_bytes(layer);
  const std::int32_t* bias = layer.bias.empty() ? nullptr : layer.bias.data();
  if (layer.op == OpKind::conv2d) {
    const Conv2dProblem& p = layer.conv;
    const auto op = runtime.prepare_conv2d(p, layer.weights.data(), bias, threads);
    const auto nhwc = nchw_to_nhwc(input, p.batch, p.in_c, p.in_h, p.in_w, 1);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * out_bytes);
    op.run(nhwc.data(), out.data());
    return nhwc_to_nchw(out, p.batch, p.out_c, p.out_h(), p.out_w(), out_bytes);
  }
  const GemmProblem& p = layer.gemm;
  const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k), m = static_cast<std::size_t>(p.m);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(layer.gemm_batches) * m * n * out_bytes);
  for (std::int64_t b = 0; b < layer.gemm_batches; ++b) {
    const auto batch = static_cast<std::size_t>(b);
    const auto op = runtime.prepare_gemm(p, layer.weights.data() + batch * k * n, n, bias, threads);
    op.run(input.data() + batch * m * k, k, out.data() + batch * m * n * out_bytes, n);
  }
  return out;
}

}  // namespace qtune::onnx_import
