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

using Bytes16 = std::uint8_t __attribute__((vector_size(16)));

// The geometry of write_whole_patches and its masks, made once per call of write_patch_rows.
struct WholePatches {
  std::size_t ld, tap_row, src_step, src_kernel_row;
  std::int64_t kernel_h;
  Bytes16 keep, fill;  // bytes [0, tap_row) of the last move from the source, the rest the zero point

  WholePatches(std::size_t ld_, std::size_t tap_row_, std::size_t src_step_, std::size_t src_kernel_row_,
               std::int64_t kernel_h_, std::uint8_t zero_point)
      : ld(ld_), tap_row(tap_row_), src_step(src_step_), src_kernel_row(src_kernel_row_), kernel_h(kernel_h_) {
    for (std::size_t i = 0; i < 16; ++i) {
      keep[i] = i < tap_row ? 0xFF : 0;
      fill[i] = i < tap_row ? 0 : zero_point;
    }
  }
};

// Patch rows of `count` output pixels whose patches are wholly inside the image and whose kernel
// rows are runs of at most 16 bytes: per row, one 16-byte move per kernel row, the last one with
// its bytes from the run's end on replaced by the zero point (the row's padding, then a spill into
// the next row, which is written after it). KernelH > 0 fixes the kernel height at compile time
// (3: the first layers); 0 takes kernel_h.
template <int KernelH>
void write_whole_patches(const WholePatches& w, std::uint8_t* row, const std::uint8_t* src, std::int64_t count) {
  const std::int64_t kernel_h = KernelH > 0 ? KernelH : w.kernel_h;
  const std::size_t last = static_cast<std::size_t>(kernel_h - 1);
  for (std::int64_t i = 0; i < count; ++i, row += w.ld, src += w.src_step) {
    for (std::size_t kh = 0; kh < last; ++kh) std::memcpy(row + kh * w.tap_row, src + kh * w.src_kernel_row, 16);
    Bytes16 v;
    std::memcpy(&v, src + last * w.src_kernel_row, 16);
    v = (v & w.keep) | w.fill;
    std::memcpy(row + last * w.tap_row, &v, 16);
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

  // Patch rows whose whole patch is inside the image, with runs of at most 16 bytes, are written
  // pixel by pixel (write_whole_patches) where the last kernel row's 16-byte move reaches the
  // row's end, so that it writes the padding too: for first layers (3x3 over 3 channels: three
  // 9-byte runs and one byte of padding per row) three stores per row in one pass, where the loop
  // below makes three passes and five stores. The move's spill into the next patch row is written
  // over after it (where the spill reaches no further than the next row: last_run_end <= 2 ld);
  // the range's last row, whose spill would leave the range, and sources within 16 bytes of the
  // input's end take the loop below.
  const std::size_t last_run_end = static_cast<std::size_t>(kernel_h - 1) * tap_row + 16;
  const std::size_t src_kernel_row = static_cast<std::size_t>(dilation_h * in_w) * pixel;

  const WholePatches whole(ld, tap_row, static_cast<std::size_t>(stride_w) * pixel, src_kernel_row, kernel_h, za);

  // One output row (n, oh) at a time, kernel row by kernel row: the inner loop moves one run per
  // output pixel at a constant source and destination stride. A 16-byte move may spill into the
  // later kernel rows of its own patch row or its padding, which are written after it, never into
  // the next patch row.
  for (std::int64_t m0 = m_begin; m0 < m_end;) {
    const std::int64_t ow_first = m0 % ow_n, oh = (m0 / ow_n) % oh_n, n = m0 / (ow_n * oh_n);
    const std::int64_t ow_last = std::min(ow_n, ow_first + (m_end - m0));  // exclusive
    std::uint8_t* first_row = patches + static_cast<std::size_t>(m0 - m_begin) * ld;
    const std::uint8_t* image = channels + static_cast<std::size_t>(n * in_h * in_w) * pixel;
    const std::int64_t ih_first = oh * stride_h - pad_top;
    const std::int64_t ih_last = ih_first + (kernel_h - 1) * dilation_h;
    std::int64_t whole_begin = ow_last, whole_end = ow_last;  // columns written pixel by pixel
    if (runs && tap_row <= 16 && last_run_end >= ld && last_run_end <= 2 * ld && ih_first >= 0 && ih_last < in_h) {
      whole_begin = std::clamp(ow_inside_begin, ow_first, ow_last);
      whole_end = std::clamp(ow_inside_end, whole_begin, ow_last);
      // The range's last row may not spill out of the range.
      if (whole_end == ow_last && m0 + (ow_last - ow_first) == m_end && last_run_end > ld) --whole_end;
      // Every source move reads 16 bytes: the last one's must be inside the input.
      const std::uint8_t* base = image + static_cast<std::size_t>(ih_first * in_w) * pixel;
      while (whole_end > whole_begin &&
             input_end - (base + static_cast<std::size_t>(kernel_h - 1) * src_kernel_row +
                          static_cast<std::size_t>((whole_end - 1) * stride_w - pad_left) * pixel) <
                 16) {
        --whole_end;
      }
      if (whole_end > whole_begin) {
        std::uint8_t* row = first_row + static_cast<std::size_t>(whole_begin - ow_first) * ld;
        const std::uint8_t* src = base + static_cast<std::size_t>(whole_begin * stride_w - pad_left) * pixel;
        if (kernel_h == 3) {
          write_whole_patches<3>(whole, row, src, whole_end - whole_begin);
        } else {
          write_whole_patches<0>(whole, row, src, whole_end - whole_begin);
        }
      } else {
        whole_begin = whole_end = ow_last;
      }
    }
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
      // Columns [whole_begin, whole_end) are written already: this kernel row's inside columns
      // start after them.
      const std::int64_t inside_begin =
          whole_end > whole_begin ? whole_end : runs ? std::clamp(ow_inside_begin, ow_first, ow_last) : ow_last;
      const std::int64_t inside_end = runs ? std::clamp(ow_inside_end, inside_begin, ow_last) : ow_last;
      border(ow_first, whole_end > whole_begin ? whole_begin : inside_begin);
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
    // The padding of the rows not written pixel by pixel (with none of those, whole_begin and
    // whole_end are ow_last and the first range is every row).
    auto pad_rows = [&](std::int64_t begin, std::int64_t end) {
      std::uint8_t* row = first_row + static_cast<std::size_t>(begin - ow_first) * ld;
      for (std::int64_t ow = begin; ow < end; ++ow, row += ld) fill_padding(row + k, za, ld - k);
    };
    if (ld > k) {
      pad_rows(ow_first, whole_begin);
      pad_rows(whole_end, ow_last);
    }
    m0 += ow_last - ow_first;
  }
}

}  // namespace qtune::detail
