// NEON requantization of 4 int32 lanes, bit-exact with requantize_reference() for every mode.
// Header-only, baseline Armv8.0 Advanced SIMD: shared by the standalone `neon` requantize kernel
// (requantize_neon.cc) and the fused epilogues of the neon, dotprod and i8mm GEMM families.
//
// How each mode maps onto Arm instructions (definitions: docs/requantization.md):
//   tflite     sshl (wrapping left shift), sqrdmulh, gemmlowp's fixup (x & -r) >> 31 added with
//              sqadd, then srshl by -r. sqrdmulh is SaturatingRoundingDoublingHighMul exactly; the
//              fixup subtracts 1 from negative values when r > 0, which turns srshl's ties-up
//              rounding into RoundingDivideByPOT's ties-away-from-zero.
//   arm        the same without the fixup: both roundings tie upward.
//   upward     smull / smull2 to 64 bits, then srshl by -(31 - e): one rounding, ties up, exact
//              (the instruction rounds before truncating, with no intermediate overflow).
//   tonearest  as upward on p - [p < 0] (ssra p, p, #63), which makes ties go away from zero.
//   fp32       scvtf, fmul, fmaxnm / fmin clamp (a NaN product becomes lo, like the reference),
//              fcvtns (round half to even).
// The 64-bit results are narrowed with sqxtn: saturating is harmless because clamping to
// [lo, hi] follows and both bounds lie within int32.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "quant/requant_plan.h"

namespace qtune::detail::neon {

// The constants of 4 consecutive channels (or of the single per-tensor channel in every lane),
// loaded once per channel block and reused for every row.
template <RoundingMode Mode>
struct RequantLanes {
  int32x4_t multiplier, left_shift, neg_right_shift;  // tflite, arm
  int64x2_t neg_product_shift_lo, neg_product_shift_hi;  // upward, tonearest: -(31 - e)
  float32x4_t scale, offset, origin;                   // the float modes (requant_plan.h)
  int32x4_t lo, hi, zero_point;
  float32x4_t lo_f, hi_f;
};

template <RoundingMode Mode>
inline RequantLanes<Mode> load_requant_lanes(const RequantConstants& plan, std::size_t channel) {
  const std::size_t i = plan.index(channel);
  RequantLanes<Mode> q{};
  q.lo = vdupq_n_s32(plan.lo);
  q.hi = vdupq_n_s32(plan.hi);
  q.zero_point = vdupq_n_s32(plan.zero_point);
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    q.multiplier = vld1q_s32(&plan.multiplier[i]);
    q.left_shift = vld1q_s32(&plan.left_shift[i]);
    q.neg_right_shift = vnegq_s32(vld1q_s32(&plan.right_shift[i]));
  } else if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    q.multiplier = vld1q_s32(&plan.multiplier[i]);
    const int32x4_t neg_shift = vnegq_s32(vld1q_s32(&plan.product_shift[i]));
    q.neg_product_shift_lo = vmovl_s32(vget_low_s32(neg_shift));
    q.neg_product_shift_hi = vmovl_high_s32(neg_shift);
  } else {
    static_assert(kFloatEpilogue<Mode>);
    q.scale = vld1q_f32(&plan.scale[i]);
    if constexpr (Mode != RoundingMode::fp32) q.offset = vld1q_f32(&plan.fp32_offset[i]);
    if constexpr (Mode == kFp32Centred) q.origin = vld1q_f32(&plan.fp32_origin[i]);
    q.lo_f = vdupq_n_f32(static_cast<float>(plan.lo));
    q.hi_f = vdupq_n_f32(static_cast<float>(plan.hi));
  }
  return q;
}

// One 64-bit half of upward / tonearest: the rounded quotient of p by 2^s, s = 31 - e.
template <RoundingMode Mode>
inline int64x2_t single_rounding_half(int64x2_t p, int64x2_t neg_shift) {
  if constexpr (Mode == RoundingMode::tonearest) p = vsraq_n_s64(p, p, 63);  // p - 1 where p < 0
  return vrshlq_s64(p, neg_shift);
}

// 4 accumulators of channels [channel, channel + 4) to values in [qmin, qmax].
template <RoundingMode Mode>
inline int32x4_t requantize4(int32x4_t acc, const RequantLanes<Mode>& q) {
  int32x4_t v;
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    int32x4_t t = vqrdmulhq_s32(vshlq_s32(acc, q.left_shift), q.multiplier);
    if constexpr (Mode == RoundingMode::tflite) {
      t = vqaddq_s32(t, vshrq_n_s32(vandq_s32(t, q.neg_right_shift), 31));
    }
    v = vminq_s32(vmaxq_s32(vrshlq_s32(t, q.neg_right_shift), q.lo), q.hi);
  } else if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    const int64x2_t lo = single_rounding_half<Mode>(vmull_s32(vget_low_s32(acc), vget_low_s32(q.multiplier)),
                                                    q.neg_product_shift_lo);
    const int64x2_t hi = single_rounding_half<Mode>(vmull_high_s32(acc, q.multiplier), q.neg_product_shift_hi);
    v = vminq_s32(vmaxq_s32(vqmovn_high_s64(vqmovn_s64(lo), hi), q.lo), q.hi);
  } else if constexpr (Mode == kFp32Centred) {
    // Lane by lane: Arm plans take no float form (FloatForms::none); it is here so that every mode
    // has a kernel.
    std::int32_t lanes[4];
    float scale[4], origin[4], addend[4];
    vst1q_s32(lanes, acc);
    vst1q_f32(scale, q.scale);
    vst1q_f32(origin, q.origin);
    vst1q_f32(addend, q.offset);
    for (int j = 0; j < 4; ++j) {
      lanes[j] = scalar::fp32_centred(lanes[j], scale[j], origin[j], addend[j], vgetq_lane_s32(q.lo, 0),
                                      vgetq_lane_s32(q.hi, 0));
    }
    v = vld1q_s32(lanes);
  } else {
    static_assert(kFloatEpilogue<Mode>);
    const float32x4_t x = vcvtq_f32_s32(acc);
    float32x4_t f;
    if constexpr (Mode == kFp32Offset) {
      // The offset with the sign of x (scalar::fp32_offset), fused with the product. Arm plans do
      // not take this form (IsaRow::float_forms); it is here so that every mode has a
      // kernel.
      const float32x4_t offset = vbslq_f32(vdupq_n_u32(0x80000000u), x, q.offset);
      f = vfmaq_f32(offset, x, q.scale);
    } else {
      f = vmulq_f32(x, q.scale);
    }
    f = vminq_f32(vmaxnmq_f32(f, q.lo_f), q.hi_f);
    v = vcvtnq_s32_f32(f);
  }
  return vaddq_s32(v, q.zero_point);
}

// Values already in [qmin, qmax] (within the output type): truncating narrows keep the bit
// pattern of both u8 and s8 results.
inline uint8x8_t narrow8(int32x4_t lo, int32x4_t hi) {
  return vreinterpret_u8_s8(vmovn_s16(vcombine_s16(vmovn_s32(lo), vmovn_s32(hi))));
}

inline uint8x16_t narrow16(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d) {
  return vcombine_u8(narrow8(a, b), narrow8(c, d));
}

}  // namespace qtune::detail::neon
