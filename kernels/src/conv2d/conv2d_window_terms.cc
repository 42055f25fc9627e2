#include "conv2d/conv2d_window_terms.h"

#include <algorithm>

#include "platform/thread_pool.h"

namespace qtune::detail {
namespace {

// The vector row-sum kernels take 16 rows per step, each at least one masked load: below this many
// bytes per pixel the per-row sums of the windows cost less than the pixels' own.
constexpr std::int64_t kMinPixelBytes = 8;

// Rows (of pixels, or of output pixels) per parallel task.
constexpr std::size_t kTaskRows = 8;

std::uint32_t u(std::int32_t v) { return static_cast<std::uint32_t>(v); }

// fn(first, end) over [0, count) in chunks of `chunk`, on `threads` threads of the shared pool.
template <class F>
void in_chunks(std::size_t count, std::size_t chunk, int threads, const F& fn) {
  const std::size_t tasks = (count + chunk - 1) / chunk;
  if (threads <= 1 || tasks <= 1) return fn(std::size_t{0}, count);
  ThreadPool::global().parallel_for(tasks, threads, [&](std::size_t task, int) {
    fn(task * chunk, std::min(count, (task + 1) * chunk));
  });
}

}  // namespace

bool window_terms_pay(const Conv2dProblem& p) {
  return p.groups == 1 && p.kernel_h * p.kernel_w > 1 && p.in_c >= kMinPixelBytes;
}

void conv_window_terms(const Conv2dProblem& p, const GemmEngine& engine, const std::uint8_t* input,
                       std::vector<std::int32_t>& terms) {
  const std::int64_t in_h = p.in_h, in_w = p.in_w, oh_n = p.out_h(), ow_n = p.out_w();
  const auto pixel_bytes = static_cast<std::size_t>(p.in_c);
  const auto input_rows = static_cast<std::size_t>(p.batch * in_h);
  const auto pixels = input_rows * static_cast<std::size_t>(in_w);
  const int threads = engine.config().threads;

  // Per calling thread, kept across calls (callers are const and may run concurrently); the pool's
  // threads write disjoint ranges of them through these references (inside the tasks, the names
  // of thread_local variables would denote the pool thread's own).
  struct Scratch {
    std::vector<const std::uint8_t*> rows;
    std::vector<std::int32_t> pixel_terms;
    std::vector<std::uint32_t> along_w;
    std::vector<std::uint8_t> zero_points;
  };
  thread_local Scratch scratch;
  std::vector<const std::uint8_t*>& rows = scratch.rows;
  std::vector<std::int32_t>& pixel_terms = scratch.pixel_terms;
  std::vector<std::uint32_t>& along_w = scratch.along_w;
  std::vector<std::uint8_t>& zero_points = scratch.zero_points;

  // Every pixel's term (a whole input row per task), and that of a padding pixel (C_in zero-point
  // bytes).
  zero_points.assign(pixel_bytes, static_cast<std::uint8_t>(p.a_zero_point));
  rows.resize(pixels + 1);
  pixel_terms.assign(pixels + 1, 0);
  const std::size_t row_pixels = static_cast<std::size_t>(in_w);
  in_chunks(input_rows, kTaskRows, threads, [&](std::size_t first, std::size_t end) {
    const std::size_t begin = first * row_pixels, count = (end - first) * row_pixels;
    for (std::size_t i = begin; i < begin + count; ++i) rows[i] = input + i * pixel_bytes;
    engine.row_terms_of(rows.data() + begin, count, pixel_bytes, pixel_terms.data() + begin);
  });
  rows[pixels] = zero_points.data();
  engine.row_terms_of(rows.data() + pixels, 1, pixel_bytes, pixel_terms.data() + pixels);
  const std::uint32_t pad = u(pixel_terms[pixels]);

  // along_w[(n, ih, ow)]: the terms of the KW taps of output column ow in input row ih. Tap by tap
  // over the columns whose tap is inside the row (a contiguous range: vectorised for stride 1),
  // padding terms for the others.
  along_w.resize(input_rows * static_cast<std::size_t>(ow_n));
  in_chunks(input_rows, kTaskRows, threads, [&](std::size_t first, std::size_t end) {
    for (std::size_t r = first; r < end; ++r) {
      const std::int32_t* row = pixel_terms.data() + r * row_pixels;
      std::uint32_t* out = along_w.data() + r * static_cast<std::size_t>(ow_n);
      std::fill(out, out + ow_n, 0u);
      for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
        const std::int64_t offset = kw * p.dilation_w - p.pad_left;  // iw = ow * stride_w + offset
        const std::int64_t begin = std::clamp<std::int64_t>((-offset + p.stride_w - 1) / p.stride_w, 0, ow_n);
        const std::int64_t end_w = std::clamp<std::int64_t>(
            in_w - offset <= 0 ? 0 : (in_w - offset + p.stride_w - 1) / p.stride_w, begin, ow_n);
        for (std::int64_t ow = 0; ow < begin; ++ow) out[ow] += pad;
        if (p.stride_w == 1) {
          const std::int32_t* tap = row + offset;
          for (std::int64_t ow = begin; ow < end_w; ++ow) out[ow] += u(tap[ow]);
        } else {
          for (std::int64_t ow = begin; ow < end_w; ++ow) out[ow] += u(row[ow * p.stride_w + offset]);
        }
        for (std::int64_t ow = end_w; ow < ow_n; ++ow) out[ow] += pad;
      }
    }
  });

  // Then the KH kernel rows of each output pixel; a kernel row in the padding is KW padding pixels.
  const std::uint32_t pad_row = pad * static_cast<std::uint32_t>(p.kernel_w);
  terms.resize(static_cast<std::size_t>(p.batch * oh_n * ow_n));
  in_chunks(static_cast<std::size_t>(p.batch * oh_n), kTaskRows, threads, [&](std::size_t first, std::size_t end) {
    for (std::size_t r = first; r < end; ++r) {
      const auto n = static_cast<std::int64_t>(r) / oh_n, oh = static_cast<std::int64_t>(r) % oh_n;
      std::int32_t* out = terms.data() + r * static_cast<std::size_t>(ow_n);
      std::fill(out, out + ow_n, 0);
      for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
        const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
        if (ih < 0 || ih >= in_h) {
          for (std::int64_t ow = 0; ow < ow_n; ++ow) out[ow] = static_cast<std::int32_t>(u(out[ow]) + pad_row);
          continue;
        }
        const std::uint32_t* sums = along_w.data() + static_cast<std::size_t>(n * in_h + ih) * static_cast<std::size_t>(ow_n);
        for (std::int64_t ow = 0; ow < ow_n; ++ow) out[ow] = static_cast<std::int32_t>(u(out[ow]) + sums[ow]);
      }
    }
  });
}

}  // namespace qtune::detail
