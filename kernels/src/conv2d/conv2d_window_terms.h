// The row terms (weight zero point) of a convolution's GEMM rows, summed per input pixel once.
//
// With a weight zero point every GEMM row m needs its term, minus the sum of the row's A bytes as
// the microkernel reads them. A convolution's row is its window: KH x KW input pixels of C_in bytes
// (zero-point bytes where a tap falls into the padding). Read in place (algo=implicit) and summed
// row by row, every input byte is read KH * KW times: for
// InceptionV3's 3x3 layers with 32 channels that was 11% of the layer. A row term is additive over
// the bytes of its row (GemmEngine::row_terms_of), so a window's term is the sum of its pixels'
// terms: each pixel is summed once, then a box sum over the taps (separable: along W, then H).
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

// terms[m] for every output pixel m (batch, oh, ow in order) of `input` (NHWC, p's shape): the row
// term of row m as `engine` counts it. `terms` is resized to M.
void conv_window_terms(const Conv2dProblem& p, const GemmEngine& engine, const std::uint8_t* input,
                       std::vector<std::int32_t>& terms);

}  // namespace qtune::detail
