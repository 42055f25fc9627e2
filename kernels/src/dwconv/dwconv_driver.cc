#include "dwconv/dwconv_driver.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dispatch/isa_table.h"
#include "platform/thread_pool.h"

namespace qtune::detail {

namespace {

// The plan of `params` with its per-channel constants in the lane order of `form`
// (dw_form_channel), one per index of dw_form_lanes.
RequantParams in_lane_order(const RequantParams& params, DwForm form) {
  if (!params.per_channel() || form == DwForm::general) return params;
  const std::size_t lanes = dw_form_lanes(form, params.channels());
  RequantParams out = params;
  out.scales.resize(lanes);
  out.fixed.resize(lanes);
  out.scales_f32.resize(lanes);
  for (std::size_t k = 0; k < lanes; ++k) {
    const std::size_t c = dw_form_channel(form, k, params.channels());
    out.scales[k] = params.scales[c];
    out.fixed[k] = params.fixed[c];
    out.scales_f32[k] = params.scales_f32[c];
  }
  return out;
}

}  // namespace

DepthwiseConv::DepthwiseConv(const Conv2dProblem& problem, const Conv2dConfig& config,
                             const std::int8_t* weights, const std::int32_t* bias)
    : problem_(problem), fuse_requant_(config.gemm.fuse_requant), threads_(config.gemm.threads) {
  kernel_ = find_dw_kernel(config.gemm.isa, config.dw_channel_tile, config.dw_width_tile);
  if (kernel_ == nullptr) throw std::invalid_argument("conv2d: no depthwise kernel for this isa and tile");
  out_h_ = problem.out_h();
  out_w_ = problem.out_w();
  multiplier_ = problem.out_c / problem.in_c;
  channels_ = static_cast<std::size_t>(problem.out_c);
  channels_padded_ = (channels_ + kDwChannelPadding - 1) / kDwChannelPadding * kDwChannelPadding;
  const std::size_t taps = static_cast<std::size_t>(problem.kernel_h * problem.kernel_w);

  // w' = w - zb per (tap, channel), in [-255, 255], and its sum per channel.
  std::vector<std::int32_t> w_prime(taps * channels_);
  std::vector<std::uint32_t> weight_sum(channels_, 0);
  bool fits_int8 = true;
  for (std::size_t c = 0; c < channels_; ++c) {
    const std::int32_t zb = problem.b_zero_points.size() > 1 ? problem.b_zero_points[c] : problem.b_zero_points[0];
    for (std::size_t t = 0; t < taps; ++t) {
      const std::int32_t w = std::int32_t{weights[t * channels_ + c]} - zb;
      w_prime[t * channels_ + c] = w;
      weight_sum[c] += static_cast<std::uint32_t>(w);
      fits_int8 = fits_int8 && w >= -128 && w <= 127;
    }
  }
  // A vpdpbusd form where the tile has one and its preconditions hold: fused requantized output,
  // and weights that are int8 after subtracting their zero point (u8 x s8 products); rowdot where
  // the layer's shape allows it, else dot4.
  if (fits_int8 && fuse_requant_ && problem.out_type != DType::s32) {
    const bool rowdot = dw_rowdot_applies(channels_, static_cast<std::size_t>(problem.kernel_w),
                                          static_cast<std::size_t>(problem.dilation_w),
                                          static_cast<std::size_t>(problem.stride_w), static_cast<std::size_t>(out_w_));
    for (const DwForm form : {DwForm::rowdot, DwForm::dot4}) {
      if (form == DwForm::rowdot && !rowdot) continue;
      if (const DwKernel* k = find_dw_kernel(config.gemm.isa, config.dw_channel_tile, config.dw_width_tile, form)) {
        kernel_ = k;
        break;
      }
    }
  }
  const DwForm form = kernel_->form;
  const std::size_t lanes = dw_form_lanes(form, channels_);
  // Indices of the form's own blocks (the rest runs the general form in channel order).
  const std::size_t block_lanes = form == DwForm::general ? 0
                                  : form == DwForm::rowdot && dw_rowdot_pixel_pairs(channels_)
                                      ? lanes
                                      : channels_ / kDwDot4Block * kDwDot4Block;

  // The plan, in the kernel's lane order. A fused centred plan's origins X0 go into the bias terms
  // below where the kernel folds them and that is exact (centred_origin_foldable), with the largest
  // accumulator taps * max|a - za| * max|w'| + max|bias|; where it is not, no centred form.
  bool fold_origin = false;
  if (problem.out_type != DType::s32) {
    const RequantParams requant = in_lane_order(problem.requant, form);
    const bool folds = fuse_requant_ && kernel_->folds_centred_origin;
    const FloatForms forms = float_forms(kernel_->isa);
    plan_ = RequantPlan::make(requant, folds ? forms : unfolded_forms(forms));
    if (plan_.mode == kFp32Centred && folds) {
      const double a_span = max_abs_offset(problem.a_type, problem.a_zero_point);
      double w_span = 0, bias_max = 0;
      for (const std::int32_t w : w_prime) w_span = std::max(w_span, std::abs(static_cast<double>(w)));
      for (std::size_t c = 0; c < channels_ && problem.has_bias; ++c) {
        bias_max = std::max(bias_max, std::abs(static_cast<double>(bias[c])));
      }
      fold_origin = centred_origin_foldable(plan_, static_cast<double>(taps) * a_span * w_span + bias_max);
      if (!fold_origin) plan_ = RequantPlan::make(requant, FloatForms::round_to_nearest);
    }
    plan_constants_ = plan_.constants();
  }

  // bias - za' * sum w' (less X0 where folded) in the kernel's lane order, za' the zero point of
  // the bytes the kernel multiplies: the vpdpbusd blocks flip s8 activations to u8 (+128), in
  // wrapping int32 arithmetic.
  const bool flip = problem.a_type == DType::s8;
  bias_term_.assign(channels_padded_, 0);
  for (std::size_t k = 0; k < lanes; ++k) {
    const std::size_t c = dw_form_channel(form, k, channels_);
    const auto za = static_cast<std::uint32_t>(problem.a_zero_point + (flip && k < block_lanes ? 128 : 0));
    const std::uint32_t b = problem.has_bias ? static_cast<std::uint32_t>(bias[c]) : 0u;
    const auto origin = static_cast<std::int32_t>(fold_origin ? plan_.fp32_origin[plan_.index(k)] : 0.0f);
    bias_term_[k] = static_cast<std::int32_t>(b - za * weight_sum[c] - static_cast<std::uint32_t>(origin));
  }
  // General form, [tap][channels_padded]: uint16(w') in the low half of an int32 lane (the other
  // forms run their channels after the last whole block this way too).
  weights_.assign(taps * channels_padded_, 0);
  for (std::size_t t = 0; t < taps; ++t) {
    for (std::size_t c = 0; c < channels_; ++c) {
      weights_[t * channels_padded_ + c] = static_cast<std::int32_t>(static_cast<std::uint16_t>(w_prime[t * channels_ + c]));
    }
  }
  if (form == DwForm::dot4) {
    // [tap][block of 64][j][64 bytes]: vector j holds channel 4i + j's weight in byte j of lane i.
    weights_bytes_.assign(taps * channels_padded_ * 4, 0);
    for (std::size_t t = 0; t < taps; ++t) {
      for (std::size_t c = 0; c < block_lanes; ++c) {
        const std::size_t block = c / kDwDot4Block, lane = c % kDwDot4Block / 4, j = c % 4;
        weights_bytes_[((t * (channels_padded_ / kDwDot4Block) + block) * 4 + j) * 64 + lane * 4 + j] =
            static_cast<std::uint8_t>(w_prime[t * channels_ + c]);
      }
    }
  }
  if (form == DwForm::rowdot) {
    // [kernel row][block][k][64 bytes]: lane i of vector k holds the row's three weights of the
    // channel at index 64 block + 16 k + i (dw_rowdot_channel) in its bytes 0..2, 0 in byte 3.
    const std::size_t kernel_rows = taps / 3, blocks = block_lanes / 64;
    weights_bytes_.assign(kernel_rows * blocks * 256, 0);
    for (std::size_t r = 0; r < kernel_rows; ++r) {
      for (std::size_t index = 0; index < block_lanes; ++index) {
        const std::size_t c = dw_form_channel(form, index, channels_);
        for (std::size_t m = 0; m < 3; ++m) {
          weights_bytes_[(r * blocks * 64 + index) * 4 + m] = static_cast<std::uint8_t>(w_prime[(r * 3 + m) * channels_ + c]);
        }
      }
    }
  }
  // A whole row of zero-point pixels: taps of padded kernel rows point into it at their column, so
  // that they advance with the output pixel like real taps (see DwRowArgs::pixel_step).
  zero_row_.assign(static_cast<std::size_t>(problem.in_w) * channels_, static_cast<std::uint8_t>(problem.a_zero_point));
  // Output pixels whose every kernel column lies inside the input row.
  const std::int64_t last_column = (problem.kernel_w - 1) * problem.dilation_w;
  const std::int64_t first = (problem.pad_left + problem.stride_w - 1) / problem.stride_w;
  const std::int64_t end = problem.in_w - 1 + problem.pad_left - last_column >= 0
                               ? (problem.in_w - 1 + problem.pad_left - last_column) / problem.stride_w + 1
                               : 0;
  affine_begin_ = static_cast<std::size_t>(std::clamp<std::int64_t>(first, 0, out_w_));
  affine_end_ = std::max(affine_begin_, static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, out_w_)));
}

std::size_t DepthwiseConv::packed_weight_bytes() const {
  return (weights_.size() + bias_term_.size()) * sizeof(std::int32_t) + weights_bytes_.size();
}

void DepthwiseConv::run(const void* input, void* output) const {
  const auto* in = static_cast<const std::uint8_t*>(input);
  auto* out = static_cast<std::uint8_t*>(output);
  const std::int64_t rows = problem_.batch * out_h_;
  if (threads_ <= 1 || rows == 1) {
    run_rows(in, out, 0, rows);
    return;
  }
  // A few tasks per thread so that uneven rows (padding) still balance, where each task still has
  // 8 rows; each task owns its scratch and sets up its rows' taps. Fewer rows go in one task per
  // thread: tasks of a row or two cost more in that set-up than they gain in balance
  // (docs/measurements.md, "Depthwise convolution").
  const std::int64_t threads = threads_;
  const std::int64_t tasks = std::min<std::int64_t>(rows, rows >= threads * 4 * 8 ? threads * 4 : threads);
  ThreadPool::global().parallel_for(static_cast<std::size_t>(tasks), threads_, [&](std::size_t task, int) {
    const auto t = static_cast<std::int64_t>(task);
    run_rows(in, out, rows * t / tasks, rows * (t + 1) / tasks);
  });
}

// Output rows [row_begin, row_end) of the flattened (batch, out_h) range.
void DepthwiseConv::run_rows(const std::uint8_t* input, std::uint8_t* output, std::int64_t row_begin,
                             std::int64_t row_end) const {
  const Conv2dProblem& p = problem_;
  const auto kh_n = static_cast<std::size_t>(p.kernel_h), kw_n = static_cast<std::size_t>(p.kernel_w);
  const std::size_t tap_count = kh_n * kw_n;
  const std::size_t out_elem = p.out_type == DType::s32 ? 4 : 1;
  const auto in_row_bytes = static_cast<std::size_t>(p.in_w * p.in_c);

  // Per-call scratch of this worker: the row's tap pointers, the int32 row of the separate
  // requantization, and (multiplier > 1) the kernel_h input rows expanded to out_c channels.
  // Kept per thread (as if new each call): an allocation of a kilobyte or more made after many
  // small frees, a library layer's, makes glibc consolidate its fast bins first, which costs more
  // than a small layer (docs/model-executor.md, "Working buffers kept across runs").
  thread_local std::vector<const std::uint8_t*> taps, affine_taps, source_rows;
  thread_local std::vector<std::int32_t> scratch;
  thread_local std::vector<std::uint8_t> expanded;
  taps.assign(static_cast<std::size_t>(out_w_) * tap_count, nullptr);
  affine_taps.assign(tap_count, nullptr);
  const std::size_t width_tile = dw_walk_width(*kernel_, channels_);
  scratch.assign(!fuse_requant_ && p.out_type != DType::s32 ? static_cast<std::size_t>(out_w_) * channels_ : 0, 0);
  expanded.assign(multiplier_ > 1 ? kh_n * static_cast<std::size_t>(p.in_w) * channels_ : 0, 0);
  source_rows.assign(kh_n, nullptr);

  DwRowArgs args;
  args.taps = taps.data();
  args.out_w = static_cast<std::size_t>(out_w_);
  args.affine_begin = affine_begin_;
  args.affine_end = affine_end_;
  args.pixel_step = static_cast<std::size_t>(p.stride_w) * channels_;
  args.affine_taps = affine_taps.data();
  args.tap_count = tap_count;
  args.kernel_w = kw_n;
  args.stride_w = static_cast<std::size_t>(p.stride_w);
  args.dilation_w = static_cast<std::size_t>(p.dilation_w);
  args.channels = channels_;
  args.channels_padded = channels_padded_;
  args.weights = weights_.data();
  args.weights_bytes = weights_bytes_.data();
  args.bias_term = bias_term_.data();
  args.signed_input = p.a_type == DType::s8;
  args.out_type = p.out_type;
  args.fuse_requant = fuse_requant_;
  args.plan = p.out_type != DType::s32 ? &plan_constants_ : nullptr;
  args.params = &p.requant;
  args.scratch = scratch.data();

  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / out_h_, oh = row % out_h_;
    // The input row of each kernel row, or null where the tap row lies in the padding.
    for (std::size_t kh = 0; kh < kh_n; ++kh) {
      const std::int64_t ih = oh * p.stride_h - p.pad_top + static_cast<std::int64_t>(kh) * p.dilation_h;
      if (ih < 0 || ih >= p.in_h) {
        source_rows[kh] = nullptr;
        continue;
      }
      const std::uint8_t* src = input + static_cast<std::size_t>(n * p.in_h + ih) * in_row_bytes;
      if (multiplier_ > 1) {
        // Channel co of the expanded row is input channel co / multiplier.
        std::uint8_t* dst = expanded.data() + kh * static_cast<std::size_t>(p.in_w) * channels_;
        for (std::int64_t iw = 0; iw < p.in_w; ++iw) {
          for (std::int64_t ci = 0; ci < p.in_c; ++ci) {
            std::fill_n(dst + iw * static_cast<std::int64_t>(channels_) + ci * multiplier_, multiplier_,
                        src[iw * p.in_c + ci]);
          }
        }
        src = dst;
      }
      source_rows[kh] = src;
    }
    // The taps of output pixel ow: a pointer per (kh, kw) to its input pixel or to the zero row.
    const auto fill_taps = [&](std::int64_t ow, const std::uint8_t** pixel_taps) {
      for (std::size_t kh = 0; kh < kh_n; ++kh) {
        for (std::size_t kw = 0; kw < kw_n; ++kw) {
          const std::int64_t iw = ow * p.stride_w - p.pad_left + static_cast<std::int64_t>(kw) * p.dilation_w;
          const bool in_row = iw >= 0 && iw < p.in_w;
          const std::uint8_t* row_start = source_rows[kh] != nullptr ? source_rows[kh] : zero_row_.data();
          pixel_taps[kh * kw_n + kw] = in_row ? row_start + static_cast<std::size_t>(iw) * channels_ : zero_row_.data();
        }
      }
    };
    if (affine_begin_ < affine_end_) fill_taps(static_cast<std::int64_t>(affine_begin_), affine_taps.data());
    for (std::size_t ow = 0; ow < args.out_w;) {
      const DwTile tile = dw_tile_at(ow, args.out_w, width_tile);
      if (!dw_tile_affine(args, tile)) {  // affine tiles read through affine_taps
        for (std::size_t px = tile.begin; px < tile.begin + tile.width; ++px) {
          fill_taps(static_cast<std::int64_t>(px), taps.data() + px * tap_count);
        }
      }
      ow = tile.begin + tile.width;
    }
    args.out = output + static_cast<std::size_t>(row * out_w_) * channels_ * out_elem;
    kernel_->fn(args);
  }
}

}  // namespace qtune::detail
