#include "layout_ops.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace qtune::executor {
namespace {

// Copies element (i, a, b) of an [n][A][B] array to (i, b, a).
template <typename E>
void swap_inner(const E* in, E* out, std::int64_t n, std::int64_t a_count, std::int64_t b_count) {
  for (std::int64_t i = 0; i < n; ++i) {
    const E* src = in + i * a_count * b_count;
    E* dst = out + i * a_count * b_count;
    for (std::int64_t a = 0; a < a_count; ++a)
      for (std::int64_t b = 0; b < b_count; ++b) dst[b * a_count + a] = src[a * b_count + b];
  }
}

void swap_inner_bytes(const void* in, void* out, std::int64_t n, std::int64_t a, std::int64_t b, std::size_t bytes) {
  if (bytes == 1) swap_inner(static_cast<const std::uint8_t*>(in), static_cast<std::uint8_t*>(out), n, a, b);
  else swap_inner(static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), n, a, b);
}

}  // namespace

void nchw_to_nhwc(const void* in, void* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::size_t bytes) {
  swap_inner_bytes(in, out, n, c, h * w, bytes);
}

void nhwc_to_nchw(const void* in, void* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::size_t bytes) {
  swap_inner_bytes(in, out, n, h * w, c, bytes);
}

void transpose(const void* in, void* out, const std::vector<std::int64_t>& in_shape, const std::vector<std::int64_t>& perm,
               std::size_t bytes) {
  const std::size_t rank = std::min(in_shape.size(), max_transpose_rank);
  std::array<std::int64_t, max_transpose_rank> in_strides{}, out_shape{}, stride_of_out_axis{}, index{};
  std::int64_t stride = 1;
  for (std::size_t k = rank; k > 0; --k) {
    in_strides[k - 1] = stride;
    stride *= in_shape[k - 1];
  }
  std::int64_t total = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    const auto from = static_cast<std::size_t>(perm[k]);
    out_shape[k] = in_shape[from];
    stride_of_out_axis[k] = in_strides[from];
    total *= out_shape[k];
  }
  const auto* src = static_cast<const std::uint8_t*>(in);
  auto* dst = static_cast<std::uint8_t*>(out);
  std::int64_t offset = 0;  // of `index` in the input, in elements
  for (std::int64_t j = 0; j < total; ++j) {
    std::memcpy(dst + static_cast<std::size_t>(j) * bytes, src + static_cast<std::size_t>(offset) * bytes, bytes);
    for (std::size_t k = rank; k > 0; --k) {
      if (++index[k - 1] < out_shape[k - 1]) {
        offset += stride_of_out_axis[k - 1];
        break;
      }
      offset -= stride_of_out_axis[k - 1] * (out_shape[k - 1] - 1);
      index[k - 1] = 0;
    }
  }
}

}  // namespace qtune::executor
