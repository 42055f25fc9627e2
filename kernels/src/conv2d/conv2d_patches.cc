#include "conv2d/conv2d_patches.h"

#include <algorithm>
#include <cstring>

namespace qtune::detail {
namespace {

// Exactly n bytes from src to dst (no overlap between them) in fixed-size moves: whole 16-byte
// moves and a last one ending at n, or two overlapping moves of the largest power of two not
// above n. Fixed-size memcpys compile to single loads and stores, and the lengths of one
// convolution are all the same, so the branches are predicted.
inline void copy_exact(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16) std::memcpy(dst + i, src + i, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// n bytes of value v. The padding of a row to whole 4-byte groups is 1 to 3 bytes: stored one by
// one (GCC turns a plain byte loop into a memset call, which costs more than the copies of a row).
inline void fill_padding(std::uint8_t* dst, std::uint8_t v, std::size_t n) {
  switch (n) {
    case 3: dst[2] = v; [[fallthrough]];
    case 2: dst[1] = v; [[fallthrough]];
    case 1: dst[0] = v; return;
    default: std::memset(dst, v, n);
  }
}

}  // namespace

void write_patch_rows(const Conv2dProblem& p, std::int64_t group, const std::uint8_t* input, std::int64_t m_begin,
                      std::int64_t m_end, std::uint8_t* patches, std::size_t ld) {
  // The geometry in locals: the byte stores below may alias anything, so fields read through `p`
  // would be reloaded after every one of them.
  const std::int64_t oh_n = p.out_h(), ow_n = p.out_w(), in_h = p.in_h, in_w = p.in_w;
  const std::int64_t kernel_h = p.kernel_h, kernel_w = p.kernel_w, stride_h = p.stride_h, stride_w = p.stride_w;
  const std::int64_t dilation_h = p.dilation_h, dilation_w = p.dilation_w, pad_top = p.pad_top, pad_left = p.pad_left;
  const auto cg = static_cast<std::size_t>(p.in_c / p.groups);
  const auto pixel = static_cast<std::size_t>(p.in_c);
  const std::size_t tap_row = static_cast<std::size_t>(kernel_w) * cg;  // one kernel row of a patch
  const std::size_t k = static_cast<std::size_t>(kernel_h) * tap_row;
  const auto za = static_cast<std::uint8_t>(p.a_zero_point);
  const std::uint8_t* input_end = input + static_cast<std::size_t>(p.batch * in_h * in_w) * pixel;
  const std::uint8_t* channels = input + static_cast<std::size_t>(group) * cg;
  // One kernel row's taps are one run of contiguous input bytes when they are adjacent pixels
  // (dilation 1) and a pixel's channels are exactly the group's (one group). Output columns
  // [ow_inside_begin, ow_inside_end) have every tap of a kernel row inside the image.
  const bool runs = dilation_w == 1 && p.groups == 1;
  const std::int64_t ow_inside_begin = std::min(ow_n, (pad_left + stride_w - 1) / stride_w);
  const std::int64_t last_inside = in_w - kernel_w + pad_left;  // ow * stride_w <= this
  const std::int64_t ow_inside_end =
      last_inside < 0 ? ow_inside_begin : std::max(ow_inside_begin, std::min(ow_n, last_inside / stride_w + 1));

  // One output row (n, oh) at a time, kernel row by kernel row: the inner loop moves one run per
  // output pixel at a constant source and destination stride. A 16-byte move may spill into the
  // later kernel rows of its own patch row or its padding, which are written after it, never into
  // the next patch row.
  for (std::int64_t m0 = m_begin; m0 < m_end;) {
    const std::int64_t ow_first = m0 % ow_n, oh = (m0 / ow_n) % oh_n, n = m0 / (ow_n * oh_n);
    const std::int64_t ow_last = std::min(ow_n, ow_first + (m_end - m0));  // exclusive
    std::uint8_t* first_row = patches + static_cast<std::size_t>(m0 - m_begin) * ld;
    const std::uint8_t* image = channels + static_cast<std::size_t>(n * in_h * in_w) * pixel;
    for (std::int64_t kh = 0; kh < kernel_h; ++kh) {
      const std::size_t offset = static_cast<std::size_t>(kh) * tap_row;
      std::uint8_t* dst = first_row + offset;
      const std::int64_t ih = oh * stride_h - pad_top + kh * dilation_h;
      if (ih < 0 || ih >= in_h) {
        for (std::int64_t ow = ow_first; ow < ow_last; ++ow, dst += ld) std::memset(dst, za, tap_row);
        continue;
      }
      const std::uint8_t* src_row = image + static_cast<std::size_t>(ih * in_w) * pixel;
      // Border columns: tap by tap, zero point where a tap falls into the padding.
      auto border = [&](std::int64_t begin, std::int64_t end) {
        std::uint8_t* row = dst + static_cast<std::size_t>(begin - ow_first) * ld;
        for (std::int64_t ow = begin; ow < end; ++ow, row += ld) {
          const std::int64_t iw0 = ow * stride_w - pad_left;
          for (std::int64_t kw = 0; kw < kernel_w; ++kw) {
            const std::int64_t iw = iw0 + kw * dilation_w;
            std::uint8_t* tap = row + static_cast<std::size_t>(kw) * cg;
            if (iw < 0 || iw >= in_w) {
              std::memset(tap, za, cg);
            } else {
              copy_exact(tap, src_row + static_cast<std::size_t>(iw) * pixel, cg);
            }
          }
        }
      };
      const std::int64_t inside_begin = runs ? std::clamp(ow_inside_begin, ow_first, ow_last) : ow_last;
      const std::int64_t inside_end = runs ? std::clamp(ow_inside_end, inside_begin, ow_last) : ow_last;
      border(ow_first, inside_begin);
      // Inside columns: one run each, at constant strides. A 16-byte move needs room in the patch
      // row (it may spill into later kernel rows or the padding, written after it) and 16 readable
      // source bytes (only the input's last bytes lack them).
      if (const std::int64_t count = inside_end - inside_begin; count > 0) {
        std::uint8_t* row = dst + static_cast<std::size_t>(inside_begin - ow_first) * ld;
        const std::uint8_t* src = src_row + static_cast<std::size_t>(inside_begin * stride_w - pad_left) * pixel;
        const std::size_t src_step = static_cast<std::size_t>(stride_w) * pixel;
        const std::uint8_t* last = src + static_cast<std::size_t>(count - 1) * src_step;
        if (tap_row <= 16 && offset + 16 <= ld && input_end - last >= 16) {
          for (std::int64_t i = 0; i < count; ++i, row += ld, src += src_step) std::memcpy(row, src, 16);
        } else {
          for (std::int64_t i = 0; i < count; ++i, row += ld, src += src_step) copy_exact(row, src, tap_row);
        }
      }
      border(inside_end, ow_last);
    }
    if (ld > k) {
      std::uint8_t* row = first_row;
      for (std::int64_t ow = ow_first; ow < ow_last; ++ow, row += ld) fill_padding(row + k, za, ld - k);
    }
    m0 += ow_last - ow_first;
  }
}

}  // namespace qtune::detail
