// The im2col patch rows of a convolution, written run by run: for one output pixel and one kernel
// row, the KW taps of a convolution with dilation 1 and one group read KW * C_in contiguous input
// bytes, so a patch row is KH copies (plus zero-point fills where it crosses the padding) instead
// of KH * KW. For first layers (C_in = 3) a tap is 3 bytes: a copy per tap, each a memcpy call,
// cost more than the GEMM itself; a run of 9 or 21 bytes is one or two 16-byte moves, and the
// loops walk a whole output row per kernel row at constant strides.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qtune/kernels/conv2d.h"

namespace qtune::detail {

// Writes the patch rows of GEMM rows [m_begin, m_end) (m = (n*OH + oh)*OW + ow) for group
// `group`: row m - m_begin at patches + (m - m_begin) * ld, K = KH*KW*Cg bytes in the order
// k = (kh*KW + kw)*Cg + ci (conv2d_gemm.h), taps in the padding and bytes [K, ld) filled with the
// zero point. Writes nothing outside those (m_end - m_begin) * ld bytes.
void write_patch_rows(const Conv2dProblem& problem, std::int64_t group, const std::uint8_t* input,
                      std::int64_t m_begin, std::int64_t m_end, std::uint8_t* patches, std::size_t ld);

}  // namespace qtune::detail
