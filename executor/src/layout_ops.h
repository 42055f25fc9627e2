// Moving tensors between layouts: ONNX's NCHW and the executor's NHWC, and ONNX's Transpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qtune::executor {

// Elements of `bytes` bytes (1 or 4).
void nchw_to_nhwc(const void* in, void* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::size_t bytes);
void nhwc_to_nchw(const void* in, void* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::size_t bytes);

// out[j] = in[i] where out's axis k is in's axis perm[k] (ONNX Transpose), of rank <= max_transpose_rank.
inline constexpr std::size_t max_transpose_rank = 8;
void transpose(const void* in, void* out, const std::vector<std::int64_t>& in_shape, const std::vector<std::int64_t>& perm,
               std::size_t bytes);

}  // namespace qtune::executor
