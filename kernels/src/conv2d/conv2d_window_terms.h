// The row terms (weight zero point) of a convolution's GEMM rows, summed per input pixel.
//
// With a weight zero point every GEMM row m needs its term, minus the sum of the row's A bytes as
// the microkernel reads them. A convolution's row is its window: KH x KW input pixels of C_in bytes
// (zero-point bytes where a tap falls into the padding). Read in place (algo=implicit) and summed
// row by row, every input byte is read KH * KW times: for
// InceptionV3's 3x3 layers with 32 channels that was 11% of the layer. A row term is additive over
// the bytes of its row (GemmEngine::row_terms_of), so a window's term is the sum of its pixels'
// terms: each pixel is summed once (twice where two threads' shares of rows both reach its row),
// then a box sum over the taps (separable: along W, then H).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "gemm/gemm_driver.h"

namespace qtune::detail {

// Whether window terms pay for `p`: one group (a pixel's bytes are the row's channels), a window of
// more than one tap, and pixels long enough for the vector row-sum kernels.
bool window_terms_pay(const Conv2dProblem& p);

// Where the term of output pixel (n, oh, ow) goes: terms[n * OH * OW + oh * oh_stride + ow * ow_stride].
// NHWC order is {OW, 1}; the GEMM rows of implicit_columns_first (n, ow, oh) are {1, OH}.
struct WindowTermsLayout {
  std::size_t oh_stride = 0, ow_stride = 1;
};

// The row terms, as `engine` counts them, of the output pixels of output rows [first_row, end_row)
// (rows are (n, oh) pairs in order) of `input` (NHWC, p's shape), into `terms` laid out as `layout`
// says. Ranges are independent: each reads only the input rows its windows reach (a range's first
// and last KH - 1 are summed by its neighbour too), so threads can take one each without a barrier.
void conv_window_terms(const Conv2dProblem& p, const GemmEngine& engine, const std::uint8_t* input,
                       std::size_t first_row, std::size_t end_row, WindowTermsLayout layout, std::int32_t* terms);

}  // namespace qtune::detail
