// The standalone requantize kernel's `neon` variant: 4 * unroll lanes per step, every mode through
// requant_neon.h. Both u8 and s8 outputs are the low byte of a value already clamped to
// [qmin, qmax], so one byte-producing loop serves both output types.
#include <arm_neon.h>

#include <cstring>

#include "arm/neon/requant_neon.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {
namespace {

template <int Unroll>
inline void store_block(std::uint8_t* dst, const int32x4_t (&v)[Unroll]) {
  if constexpr (Unroll == 1) {
    const std::uint32_t four = vget_lane_u32(vreinterpret_u32_u8(neon::narrow8(v[0], v[0])), 0);
    std::memcpy(dst, &four, sizeof(four));  // dst has no alignment guarantee
  } else if constexpr (Unroll == 2) {
    vst1_u8(dst, neon::narrow8(v[0], v[1]));
  } else {
    static_assert(Unroll == 4);
    vst1q_u8(dst, neon::narrow16(v[0], v[1], v[2], v[3]));
  }
}

template <RoundingMode Mode, int Unroll>
void requantize_rows(const RequantConstants& plan, const std::int32_t* acc, std::size_t rows, std::size_t cols,
                     std::size_t acc_stride, std::uint8_t* out, std::size_t out_stride) {
  constexpr std::size_t kBlock = 4 * Unroll;
  // Per-tensor plans: one set of constants for the whole matrix.
  const neon::RequantLanes<Mode> tensor_lanes = neon::load_requant_lanes<Mode>(plan, 0);
  auto lanes_at = [&](std::size_t c) {
    return plan.per_channel ? neon::load_requant_lanes<Mode>(plan, c) : tensor_lanes;
  };
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int32_t* src = acc + r * acc_stride;
    std::uint8_t* dst = out + r * out_stride;
    std::size_t c = 0;
    for (; c + kBlock <= cols; c += kBlock) {
      int32x4_t v[Unroll];
      for (int u = 0; u < Unroll; ++u) {
        v[u] = neon::requantize4<Mode>(vld1q_s32(src + c + 4 * u), lanes_at(c + 4 * u));
      }
      store_block<Unroll>(dst + c, v);
    }
    // Ragged end: 4 lanes at a time through a zero-padded copy, never reading or writing past
    // the row (the plan's per-channel arrays are padded for the constants' loads).
    for (; c < cols; c += 4) {
      const std::size_t n = cols - c < 4 ? cols - c : 4;
      std::int32_t in[4] = {0, 0, 0, 0};
      std::memcpy(in, src + c, n * sizeof(std::int32_t));
      const int32x4_t v = neon::requantize4<Mode>(vld1q_s32(in), lanes_at(c));
      std::uint8_t bytes[8];
      vst1_u8(bytes, neon::narrow8(v, v));
      std::memcpy(dst + c, bytes, n);
    }
  }
}

template <RoundingMode Mode>
void requantize_rows_unrolled(int unroll, const RequantConstants& plan, const std::int32_t* acc, std::size_t rows,
                              std::size_t cols, std::size_t acc_stride, std::uint8_t* out, std::size_t out_stride) {
  switch (unroll) {
    case 1: return requantize_rows<Mode, 1>(plan, acc, rows, cols, acc_stride, out, out_stride);
    case 2: return requantize_rows<Mode, 2>(plan, acc, rows, cols, acc_stride, out, out_stride);
    default: return requantize_rows<Mode, 4>(plan, acc, rows, cols, acc_stride, out, out_stride);
  }
}

}  // namespace

void requantize_rows_neon(int unroll, const RequantConstants& plan, DType /*out_type: same bytes for u8 and s8*/,
                          const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                          void* out, std::size_t out_stride) {
  auto* bytes = static_cast<std::uint8_t*>(out);
  with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() {
    requantize_rows_unrolled<Mode>(unroll, plan, acc, rows, cols, acc_stride, bytes, out_stride);
  });
}

}  // namespace qtune::detail
