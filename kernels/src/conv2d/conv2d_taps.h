// Where each (output row of the GEMM view, kernel tap) of a convolution reads its input, tap by tap:
// the indirection table's view. The im2col copy (conv2d_patches.h) writes the same patches run by
// run; the reference convolution and the conv tests check that both agree.
#pragma once

#include <cstdint>

#include "qtune/kernels/conv2d.h"

namespace qtune::detail {

// Calls fn(m, tap, offset) for GEMM rows m in [m_begin, m_end) (m = (n*OH + oh)*OW + ow) and taps
// tap = kh*KW + kw, with `offset` the byte offset of the input pixel (channel 0) the tap reads, or
// -1 where it falls into the padding.
template <class Fn>
void for_each_tap(const Conv2dProblem& p, std::int64_t m_begin, std::int64_t m_end, Fn&& fn) {
  const std::int64_t oh_n = p.out_h(), ow_n = p.out_w();
  for (std::int64_t m = m_begin; m < m_end; ++m) {
    const std::int64_t ow = m % ow_n, oh = (m / ow_n) % oh_n, n = m / (ow_n * oh_n);
    for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
      const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
      for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
        const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
        const bool inside = ih >= 0 && ih < p.in_h && iw >= 0 && iw < p.in_w;
        fn(m, kh * p.kernel_w + kw, inside ? ((n * p.in_h + ih) * p.in_w + iw) * p.in_c : std::int64_t{-1});
      }
    }
  }
}

}  // namespace qtune::detail
