#include "conv2d/conv2d_window_terms.h"

#include <algorithm>

#include "platform/strided_rows.h"
#include "qtune/kernels/target_clones.h"

namespace qtune::detail {
namespace {

// The vector row-sum kernels take 16 rows per step, each at least one masked load: below this many
// bytes per pixel the per-row sums of the windows cost less than the pixels' own.
constexpr std::int64_t kMinPixelBytes = 8;

std::uint32_t u(std::int32_t v) { return static_cast<std::uint32_t>(v); }

// out[ow] = the sum over kw < taps of row[ow * stride + kw * dilation], for ow < outputs. The
// common 3-tap stride-1 window in one pass; the others a pass per tap.
QTUNE_CLONED_FOR_AVX512
void sum_taps(const std::uint32_t* row, std::size_t outputs, std::size_t taps, std::size_t stride, std::size_t dilation,
              std::uint32_t* out) {
  if (taps == 3 && stride == 1 && dilation == 1) {
    for (std::size_t ow = 0; ow < outputs; ++ow) out[ow] = row[ow] + row[ow + 1] + row[ow + 2];
    return;
  }
  if (stride == 1) {
    std::copy(row, row + outputs, out);
    for (std::size_t kw = 1; kw < taps; ++kw) {
      const std::uint32_t* tap = row + kw * dilation;
      for (std::size_t ow = 0; ow < outputs; ++ow) out[ow] += tap[ow];
    }
    return;
  }
  for (std::size_t ow = 0; ow < outputs; ++ow) out[ow] = row[ow * stride];
  for (std::size_t kw = 1; kw < taps; ++kw) {
    const std::uint32_t* tap = row + kw * dilation;
    for (std::size_t ow = 0; ow < outputs; ++ow) out[ow] += tap[ow * stride];
  }
}

}  // namespace

bool window_terms_pay(const Conv2dProblem& p) {
  return p.groups == 1 && p.kernel_h * p.kernel_w > 1 && p.in_c >= kMinPixelBytes;
}

// Cloned for AVX-512: the box sums are plain loops over a row of int32 terms, 16 at a time there
// where the baseline build does 4 (they were 60% of the window terms of InceptionV3's 149x149x32
// layer).
QTUNE_CLONED_FOR_AVX512
void conv_window_terms(const Conv2dProblem& p, const GemmEngine& engine, const std::uint8_t* input,
                       std::size_t first_row, std::size_t end_row, WindowTermsLayout layout, std::int32_t* terms) {
  const std::int64_t in_h = p.in_h, in_w = p.in_w, oh_n = p.out_h(), ow_n = p.out_w();
  const auto pixel_bytes = static_cast<std::size_t>(p.in_c);
  const auto row_pixels = static_cast<std::size_t>(in_w), row_outputs = static_cast<std::size_t>(ow_n);

  // Per executing thread, kept across calls: callers on several threads (or the pool's threads,
  // each with a range of rows) never share them.
  struct Scratch {
    std::vector<const std::uint8_t*> rows;
    std::vector<std::int32_t> pixel_terms;
    std::vector<std::uint32_t> along_w, out, padded;
    std::vector<std::uint8_t> zero_points;
  };
  thread_local Scratch s;

  // The term of a padding pixel: C_in zero-point bytes.
  s.zero_points.assign(pixel_bytes, static_cast<std::uint8_t>(p.a_zero_point));
  const std::uint8_t* zero_row = s.zero_points.data();
  std::int32_t pad_term = 0;  // row_terms_of adds to what is there
  engine.row_terms_of(&zero_row, 1, pixel_bytes, &pad_term);
  const std::uint32_t pad = u(pad_term), pad_row = pad * static_cast<std::uint32_t>(p.kernel_w);
  s.out.resize(row_outputs);
  // A row with its padding: every tap of every output column, from iw = -pad_left.
  const auto kernel_w = static_cast<std::size_t>(p.kernel_w), stride_w = static_cast<std::size_t>(p.stride_w),
             dilation_w = static_cast<std::size_t>(p.dilation_w);
  const auto pad_left = static_cast<std::size_t>(p.pad_left);
  const std::size_t padded_w =
      std::max(pad_left + row_pixels, (row_outputs - 1) * stride_w + (kernel_w - 1) * dilation_w + 1);
  s.padded.resize(padded_w);

  // Output rows are (n, oh) pairs; the range is taken one image at a time.
  for (std::size_t row = first_row; row < end_row;) {
    const auto n = static_cast<std::int64_t>(row) / oh_n, oh_first = static_cast<std::int64_t>(row) % oh_n;
    const std::int64_t oh_end = std::min<std::int64_t>(oh_n, oh_first + static_cast<std::int64_t>(end_row - row));
    // The input rows these output rows reach inside the image.
    const std::int64_t ih_first = std::clamp<std::int64_t>(oh_first * p.stride_h - p.pad_top, 0, in_h);
    const std::int64_t ih_end = std::clamp<std::int64_t>(
        (oh_end - 1) * p.stride_h - p.pad_top + (p.kernel_h - 1) * p.dilation_h + 1, ih_first, in_h);
    const auto input_rows = static_cast<std::size_t>(ih_end - ih_first), pixels = input_rows * row_pixels;

    // Every pixel's term.
    const std::uint8_t* first_pixel = input + static_cast<std::size_t>(n * in_h + ih_first) * row_pixels * pixel_bytes;
    s.pixel_terms.assign(pixels, 0);  // row_terms_of adds to what is there
    if (pixels != 0 && !engine.dense_row_terms_of(first_pixel, pixels, pixel_bytes, s.pixel_terms.data())) {
      s.rows.resize(pixels);
      fill_strided_rows(s.rows.data(), first_pixel, pixel_bytes, pixels);
      engine.row_terms_of(s.rows.data(), pixels, pixel_bytes, s.pixel_terms.data());
    }

    // along_w[(ih, ow)]: the terms of the KW taps of output column ow in input row ih, from the
    // row with its padding as padding terms (`padded`, from iw = -pad_left): the taps of every
    // column are then inside it, and each tap is one pass of plain loads and adds over the columns.
    s.along_w.resize(input_rows * row_outputs);
    for (std::size_t r = 0; r < input_rows; ++r) {
      const std::int32_t* pixel_row = s.pixel_terms.data() + r * row_pixels;
      std::uint32_t* padded = s.padded.data();
      std::fill(padded, padded + pad_left, pad);
      for (std::size_t iw = 0; iw < row_pixels; ++iw) padded[pad_left + iw] = u(pixel_row[iw]);
      std::fill(padded + pad_left + row_pixels, padded + padded_w, pad);
      sum_taps(padded, row_outputs, kernel_w, stride_w, dilation_w, s.along_w.data() + r * row_outputs);
    }

    // Then the KH kernel rows of each output pixel; a kernel row in the padding is KW padding pixels.
    for (std::int64_t oh = oh_first; oh < oh_end; ++oh) {
      std::uint32_t* out = s.out.data();
      std::uint32_t padding = 0;  // the kernel rows in the padding, added once
      bool first = true;
      for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
        const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
        if (ih < 0 || ih >= in_h) {
          padding += pad_row;
          continue;
        }
        const std::uint32_t* sums = s.along_w.data() + static_cast<std::size_t>(ih - ih_first) * row_outputs;
        if (first) {
          std::copy(sums, sums + row_outputs, out);
          first = false;
        } else {
          for (std::size_t ow = 0; ow < row_outputs; ++ow) out[ow] += sums[ow];
        }
      }
      if (first) std::fill(out, out + row_outputs, 0u);
      std::int32_t* dst = terms + static_cast<std::size_t>(n) * static_cast<std::size_t>(oh_n) * row_outputs +
                          static_cast<std::size_t>(oh) * layout.oh_stride;
      if (layout.ow_stride == 1) {
        for (std::size_t ow = 0; ow < row_outputs; ++ow) dst[ow] = static_cast<std::int32_t>(out[ow] + padding);
      } else {
        for (std::size_t ow = 0; ow < row_outputs; ++ow) {
          dst[ow * layout.ow_stride] = static_cast<std::int32_t>(out[ow] + padding);
        }
      }
    }
    row += static_cast<std::size_t>(oh_end - oh_first);
  }
}

}  // namespace qtune::detail
