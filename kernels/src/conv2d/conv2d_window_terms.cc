#include "conv2d/conv2d_window_terms.h"

#include <algorithm>

namespace qtune::detail {
namespace {

// The vector row-sum kernels take 16 rows per step, each at least one masked load: below this many
// bytes per pixel the per-row sums of the windows cost less than the pixels' own.
constexpr std::int64_t kMinPixelBytes = 8;

std::uint32_t u(std::int32_t v) { return static_cast<std::uint32_t>(v); }

}  // namespace

bool window_terms_pay(const Conv2dProblem& p) {
  return p.groups == 1 && p.kernel_h * p.kernel_w > 1 && p.in_c >= kMinPixelBytes;
}

void conv_window_terms(const Conv2dProblem& p, const GemmEngine& engine, const std::uint8_t* input,
                       std::vector<std::int32_t>& terms) {
  const std::int64_t batch = p.batch, in_h = p.in_h, in_w = p.in_w, oh_n = p.out_h(), ow_n = p.out_w();
  const auto pixel_bytes = static_cast<std::size_t>(p.in_c);
  const auto pixels = static_cast<std::size_t>(batch * in_h * in_w);
  const auto za = static_cast<std::uint8_t>(p.a_zero_point);

  // Per thread, kept across calls (callers are const and may run concurrently).
  thread_local std::vector<const std::uint8_t*> rows;
  thread_local std::vector<std::int32_t> pixel_terms;
  thread_local std::vector<std::uint32_t> along_w;
  thread_local std::vector<std::uint8_t> zero_points;

  // Every pixel's term, then that of a padding pixel (C_in zero-point bytes).
  zero_points.assign(pixel_bytes, za);
  rows.resize(pixels + 1);
  for (std::size_t i = 0; i < pixels; ++i) rows[i] = input + i * pixel_bytes;
  rows[pixels] = zero_points.data();
  pixel_terms.assign(pixels + 1, 0);
  engine.row_terms_of(rows.data(), pixels + 1, pixel_bytes, pixel_terms.data());
  const std::uint32_t pad = u(pixel_terms[pixels]);

  // along_w[(n, ih, ow)]: the terms of the KW taps of output column ow in input row ih. Tap by tap
  // over the columns whose tap is inside the row (a contiguous range: vectorised for stride 1),
  // padding terms for the others.
  along_w.resize(static_cast<std::size_t>(batch * in_h * ow_n));
  for (std::int64_t r = 0; r < batch * in_h; ++r) {
    const std::int32_t* row = pixel_terms.data() + r * in_w;
    std::uint32_t* out = along_w.data() + r * ow_n;
    std::fill(out, out + ow_n, 0u);
    for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
      const std::int64_t offset = kw * p.dilation_w - p.pad_left;  // iw = ow * stride_w + offset
      const std::int64_t first = std::clamp<std::int64_t>((-offset + p.stride_w - 1) / p.stride_w, 0, ow_n);
      const std::int64_t end = std::clamp<std::int64_t>(
          in_w - offset <= 0 ? 0 : (in_w - offset + p.stride_w - 1) / p.stride_w, first, ow_n);
      for (std::int64_t ow = 0; ow < first; ++ow) out[ow] += pad;
      if (p.stride_w == 1) {
        const std::int32_t* tap = row + offset;
        for (std::int64_t ow = first; ow < end; ++ow) out[ow] += u(tap[ow]);
      } else {
        for (std::int64_t ow = first; ow < end; ++ow) out[ow] += u(row[ow * p.stride_w + offset]);
      }
      for (std::int64_t ow = end; ow < ow_n; ++ow) out[ow] += pad;
    }
  }
  // Then the KH kernel rows of each output pixel; a kernel row in the padding is KW padding pixels.
  const std::uint32_t pad_row = pad * static_cast<std::uint32_t>(p.kernel_w);
  terms.resize(static_cast<std::size_t>(batch * oh_n * ow_n));
  std::int32_t* out = terms.data();
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t oh = 0; oh < oh_n; ++oh, out += ow_n) {
      std::fill(out, out + ow_n, 0);
      for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
        const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
        if (ih < 0 || ih >= in_h) {
          for (std::int64_t ow = 0; ow < ow_n; ++ow) out[ow] = static_cast<std::int32_t>(u(out[ow]) + pad_row);
          continue;
        }
        const std::uint32_t* sums = along_w.data() + (n * in_h + ih) * ow_n;
        for (std::int64_t ow = 0; ow < ow_n; ++ow) out[ow] = static_cast<std::int32_t>(u(out[ow]) + sums[ow]);
      }
    }
  }
}

}  // namespace qtune::detail
