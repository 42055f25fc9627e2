// Running a model's layer through the runtime on tensors in ONNX's layout (NCHW activations,
// [..., M, K] matrices), converting to and from qtune's (NHWC, M x K).
#pragma once

#include <cstdint>
#include <vector>

#include "qtune/onnx_import/model.h"
#include "qtune/runtime/runtime.h"

namespace qtune::onnx_import {

// The layer's output for `input` (its ONNX shape, one byte per element): one byte per element,
// or four (int32, native order) for ConvInteger / MatMulInteger. std::invalid_argument when the
// input's size does not match the layer's input shape.
std::vector<std::uint8_t> run_layer(const runtime::Runtime& runtime, const ModelLayer& layer,
                                    const std::vector<std::uint8_t>& input, int threads = 1);

// NCHW <-> NHWC of one-byte or four-byte elements.
std::vector<std::uint8_t> nchw_to_nhwc(const std::vector<std::uint8_t>& nchw, std::int64_t n, std::int64_t c,
                                       std::int64_t h, std::int64_t w, std::size_t element_bytes);
std::vector<std::uint8_t> nhwc_to_nchw(const std::vector<std::uint8_t>& nhwc, std::int64_t n, std::int64_t c,
                                       std::int64_t h, std::int64_t w, std::size_t element_bytes);

}  // namespace qtune::onnx_import
