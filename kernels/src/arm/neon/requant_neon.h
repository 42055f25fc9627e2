// NEON requantization of 4 int32 lanes, bit-exact with requantize_reference() for every mode.
// Header-only, baseline Armv8.0 Advanced SIMD: shared by the standalone `neon` requantize kernel
// (requantize_neon.cc), the fused epilogues of the neon, dotprod and i8mm GEMM families and the
// NEON depthwise tiles (dwconv_neon.cc).
//
// How each mode maps onto Arm instructions (definitions: docs/requantization.md):
//   tflite     sshl (wrapping left shift), sqrdmulh, gemmlowp's fixup (x & -r) >> 31 added with
//              ssra, then srshl by -r. sqrdmulh is SaturatingRoundingDoublingHighMul exactly; the
//              fixup subtracts 1 from negative values when r > 0, which turns srshl's ties-up
//              rounding into RoundingDivideByPOT's ties-away-from-zero. It cannot wrap: sqrdmulh by
//              a multiplier below 2^31 never returns INT32_MIN.
//   arm        the same without the fixup: both roundings tie upward.
//   upward     sqshl by pre, sqdmulh, srshl by -post, in 32-bit lanes (as XNNPACK's rndnu), with
//              s = 31 + post - pre split so that post >= 1 (RequantPlan::rounding_pre_shift): for
//              x = acc * 2^pre, sqdmulh is floor(x * M / 2^31), and rounding that floor again, ties up,
//              by 2^post >= 2 is x * M rounded once by 2^(s + pre) (a floor adds nothing to a rounding
//              by a whole power of two): p rounded by 2^s. Where sqshl saturates (pre > 0, s <= 31,
//              |acc| >= 2^(31 - pre)), |p / 2^s| >= M / 2 >= 2^29 and the saturated value gives the
//              same sign beyond 2^29 (M is 0 or at least 2^30: RequantParams::check): both clamp.
//   tonearest  upward less 1 where p < 0 is a tie (p's lowest set bit at 2^(s-1): an and and a
//              cmeq of acc, RequantPlan::tie_mask), which makes ties go away from zero.
//   fp32       scvtf, fmul, fmaxnm / fmin clamp (a NaN product becomes lo, like the reference),
//              fcvtns (round half to even); the GEMM tiles round with an addition instead
//              (kRoundingAddend).
// Short forms (Plain = true), for the plans of real layers (scales below 1/2, takes_plain_form):
//   tflite     no left shift, and the fixup is ssra t, t, #31: every r >= 1.
//   arm        no left shift.
//   upward     without the sqshl: pre = 0 where s >= 32.
//   tonearest  upward's short form, for plans of upward's short form whose products never tie
//              (RequantConstants::product_never_ties): the two modes differ only at ties.
// Where the core has sqrdmlah, both forms of tflite take the fixup from the sign of x instead and
// add it inside the multiply (kHasRoundingDoublingMultiplyAccumulate).
//
// The GEMM tiles finish 16 values at a time on 16-bit lanes (to_bytes16), the depthwise tiles 8
// (epilogue_bytes8): sqxtn, the clamp to [qmin - zp, qmax - zp], the zero point, a narrowing to
// bytes. The saturation changes no result: both bounds lie well inside int16 for 8-bit outputs.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "quant/requant_plan.h"

namespace qtune::detail::neon {

// Whether Mode has a short form (above).
template <RoundingMode Mode>
inline constexpr bool kHasPlainForm = Mode == RoundingMode::tflite || Mode == RoundingMode::arm ||
                                      Mode == RoundingMode::upward || Mode == RoundingMode::tonearest;

// The modes that round the product once (sqdmulh, srshl).
template <RoundingMode Mode>
inline constexpr bool kSingleRounding = Mode == RoundingMode::upward || Mode == RoundingMode::tonearest;

// Whether a plan of Mode may take its short form: decided once per call, never per vector.
template <RoundingMode Mode>
inline bool takes_plain_form(const RequantConstants& plan) {
  if constexpr (Mode == RoundingMode::arm) return !plan.any_left_shift;
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::upward) return plan.every_scale_below_half;
  if constexpr (Mode == RoundingMode::tonearest) return plan.product_never_ties && plan.every_scale_below_half;
  return false;
}

// The constants of 4 consecutive channels (or of the single per-tensor channel in every lane),
// loaded once per channel block and reused for every row.
template <RoundingMode Mode, bool Plain = false>
struct RequantLanes {
  static_assert(!Plain || kHasPlainForm<Mode>);
  // tflite, arm: l and -r; kSingleRounding: pre and -post.
  int32x4_t multiplier, left_shift, neg_right_shift;
  int32x4_t tie_mask, tie_bits;  // tonearest's general form
  float32x4_t scale, offset, origin;                   // the float modes (requant_plan.h)
  int32x4_t lo, hi, zero_point;
  float32x4_t lo_f, hi_f;
};

template <RoundingMode Mode, bool Plain = false>
inline RequantLanes<Mode, Plain> load_requant_lanes(const RequantConstants& plan, std::size_t channel) {
  const std::size_t i = plan.index(channel);
  RequantLanes<Mode, Plain> q{};
  q.lo = vdupq_n_s32(plan.lo);
  q.hi = vdupq_n_s32(plan.hi);
  q.zero_point = vdupq_n_s32(plan.zero_point);
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    q.multiplier = vld1q_s32(&plan.multiplier[i]);
    if constexpr (!Plain) q.left_shift = vld1q_s32(&plan.left_shift[i]);
    q.neg_right_shift = vnegq_s32(vld1q_s32(&plan.right_shift[i]));
  } else if constexpr (kSingleRounding<Mode>) {
    q.multiplier = vld1q_s32(&plan.multiplier[i]);
    q.neg_right_shift = vld1q_s32(&plan.rounding_neg_post_shift[i]);
    if constexpr (!Plain) q.left_shift = vld1q_s32(&plan.rounding_pre_shift[i]);
    if constexpr (!Plain && Mode == RoundingMode::tonearest) {
      q.tie_mask = vld1q_s32(&plan.tie_mask[i]);
      q.tie_bits = vld1q_s32(&plan.tie_bits[i]);
    }
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

// Armv8.1's sqrdmlah (every core with dotprod has it): tflite takes its fixup from the sign of x
// (the shifted accumulator) instead of t's, added inside the multiply. The two agree wherever the
// fixup applies (r >= 1): M >= 0, so t < 0 only where x < 0, and where x < 0 but t = 0, t - 1 = -1
// still rounds to 0 by 2^r.
#if defined(__ARM_FEATURE_QRDMX)
inline constexpr bool kHasRoundingDoublingMultiplyAccumulate = true;
#else
inline constexpr bool kHasRoundingDoublingMultiplyAccumulate = false;
#endif

// The float modes clamp before they convert (as the reference does), the others after scaled4.
template <RoundingMode Mode>
inline constexpr bool kScaledIsClamped = kFloatEpilogue<Mode>;

// 4 accumulators of channels [channel, channel + 4) scaled and rounded: the value before the zero
// point is added, clamped to [lo, hi] where kScaledIsClamped, else not yet.
template <RoundingMode Mode, bool Plain>
inline int32x4_t scaled4(int32x4_t acc, const RequantLanes<Mode, Plain>& q) {
  if constexpr (Mode == RoundingMode::tflite && kHasRoundingDoublingMultiplyAccumulate) {
    // sqrdmlah onto the fixup, -1 from the sign of x rather than of t, and in the general form only
    // where r >= 1 (l = 0 there, so x is acc): see kHasRoundingDoublingMultiplyAccumulate.
    const int32x4_t x = Plain ? acc : vshlq_s32(acc, q.left_shift);
    uint32x4_t fix = vcltzq_s32(x);
    if constexpr (!Plain) fix = vandq_u32(fix, vcltzq_s32(q.neg_right_shift));
    return vrshlq_s32(vqrdmlahq_s32(vreinterpretq_s32_u32(fix), x, q.multiplier), q.neg_right_shift);
  } else if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    int32x4_t t = vqrdmulhq_s32(Plain ? acc : vshlq_s32(acc, q.left_shift), q.multiplier);
    if constexpr (Mode == RoundingMode::tflite) {
      t = Plain ? vsraq_n_s32(t, t, 31) : vsraq_n_s32(t, vandq_s32(t, q.neg_right_shift), 31);
    }
    return vrshlq_s32(t, q.neg_right_shift);
  } else if constexpr (kSingleRounding<Mode>) {
    const int32x4_t x = Plain ? acc : vqshlq_s32(acc, q.left_shift);
    const int32x4_t up = vrshlq_s32(vqdmulhq_s32(x, q.multiplier), q.neg_right_shift);
    if constexpr (Plain || Mode == RoundingMode::upward) {
      return up;
    } else {
      // cmeq's all-ones lanes are -1: one less at the ties of negative products.
      return vaddq_s32(up, vreinterpretq_s32_u32(vceqq_s32(vandq_s32(acc, q.tie_mask), q.tie_bits)));
    }
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
    return vld1q_s32(lanes);
  } else {
    static_assert(kFloatEpilogue<Mode>);
    const float32x4_t x = vcvtq_f32_s32(acc);
    if constexpr (Mode == kFp32Offset) {
      // The offset with the sign of x (scalar::fp32_offset), fused with the product. Arm plans do
      // not take this form (IsaRow::float_forms); it is here so that every mode has a kernel.
      const float32x4_t offset = vbslq_f32(vdupq_n_u32(0x80000000u), x, q.offset);
      return vcvtnq_s32_f32(vminq_f32(vmaxnmq_f32(vfmaq_f32(offset, x, q.scale), q.lo_f), q.hi_f));
    } else {
      return vcvtnq_s32_f32(vminq_f32(vmaxnmq_f32(vmulq_f32(x, q.scale), q.lo_f), q.hi_f));
    }
  }
}

// 4 accumulators to values in [qmin, qmax] (int32 lanes): the standalone kernel and the general
// forms of the tiles' epilogues (epilogue4).
template <RoundingMode Mode>
inline int32x4_t requantize4(int32x4_t acc, const RequantLanes<Mode>& q) {
  const int32x4_t v = scaled4(acc, q);
  if constexpr (kScaledIsClamped<Mode>) {
    return vaddq_s32(v, q.zero_point);
  } else {
    return vaddq_s32(vminq_s32(vmaxq_s32(v, q.lo), q.hi), q.zero_point);
  }
}

// The 16-bit constants of to_bytes16, and the zero point as bytes (fp32's finish).
struct OutputLanes {
  int16x8_t lo, hi, zero_point;
  uint8x16_t zero_point_bytes;
};

inline OutputLanes load_output_lanes(const RequantConstants& plan) {
  return {vdupq_n_s16(static_cast<std::int16_t>(plan.lo)), vdupq_n_s16(static_cast<std::int16_t>(plan.hi)),
          vdupq_n_s16(static_cast<std::int16_t>(plan.zero_point)),
          vdupq_n_u8(static_cast<std::uint8_t>(plan.zero_point))};
}

// 8 scaled values (scaled4) clamped, with the zero point, on 16-bit lanes.
inline int16x8_t finish8(int32x4_t a, int32x4_t b, const OutputLanes& out) {
  const int16x8_t v = vqmovn_high_s32(vqmovn_s32(a), b);
  return vaddq_s16(vminq_s16(vmaxq_s16(v, out.lo), out.hi), out.zero_point);
}

// 16 scaled values to the output bytes: u8 and s8 results share their bit patterns.
inline uint8x16_t to_bytes16(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d, const OutputLanes& out) {
  return vuzp1q_u8(vreinterpretq_u8_s16(finish8(a, b, out)), vreinterpretq_u8_s16(finish8(c, d, out)));
}

// Values already in [qmin, qmax] (within the output type): truncating narrows keep the bit
// pattern of both u8 and s8 results.
inline uint8x8_t narrow8(int32x4_t lo, int32x4_t hi) {
  return vreinterpret_u8_s8(vmovn_s16(vuzp1q_s16(vreinterpretq_s16_s32(lo), vreinterpretq_s16_s32(hi))));
}

// The same for 16 values: three uzp1 (two narrows a vector took six instructions).
inline uint8x16_t narrow16(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d) {
  return vuzp1q_u8(vreinterpretq_u8_s16(vuzp1q_s16(vreinterpretq_s16_s32(a), vreinterpretq_s16_s32(b))),
                   vreinterpretq_u8_s16(vuzp1q_s16(vreinterpretq_s16_s32(c), vreinterpretq_s16_s32(d))));
}

// Where the GEMM tiles clamp and add the zero point: on 16-bit lanes (to_bytes16) for the integer
// modes, whose scaling ends in 32-bit lanes. fp32 has a finish of its own.
template <RoundingMode Mode>
inline constexpr bool kClampsIn16Bits =
    Mode == RoundingMode::tflite || Mode == RoundingMode::arm || kSingleRounding<Mode>;

// fp32 in the GEMM tiles rounds by adding 1.5 * 2^23 to the clamped float: the sum's ulp is 1, so
// the addition rounds half to even as fcvtns does, and the value v sits in its low bits
// (0x4B400000 + v, |v| < 2^22), which truncating narrows take as bytes. fcvtns and scvtf are two
// uops on a single pipe of Neoverse N1 and N2; the addition is one on either.
inline constexpr float kRoundingAddend = 12582912.0f;

// A GEMM tile's 4 accumulators: requantize4's values, the scaled values that epilogue_bytes16
// clamps on 16-bit lanes, or fp32's rounded bits (kRoundingAddend) without the zero point.
template <RoundingMode Mode, bool Plain>
inline int32x4_t epilogue4(int32x4_t acc, const RequantLanes<Mode, Plain>& q) {
  if constexpr (Mode == RoundingMode::fp32) {
    const float32x4_t clamped = vminq_f32(vmaxnmq_f32(vmulq_f32(vcvtq_f32_s32(acc), q.scale), q.lo_f), q.hi_f);
    return vreinterpretq_s32_f32(vaddq_f32(clamped, vdupq_n_f32(kRoundingAddend)));
  } else if constexpr (kClampsIn16Bits<Mode>) {
    return scaled4(acc, q);
  } else {
    return requantize4(acc, q);
  }
}

// 8 outputs of epilogue4 as bytes.
template <RoundingMode Mode, bool Plain>
inline uint8x8_t epilogue_bytes8(int32x4_t a, int32x4_t b, const OutputLanes& out) {
  if constexpr (Mode == RoundingMode::fp32) {
    return vadd_u8(narrow8(a, b), vget_low_u8(out.zero_point_bytes));  // wraps to the u8 / s8 pattern
  } else if constexpr (kClampsIn16Bits<Mode>) {
    return vreinterpret_u8_s8(vmovn_s16(finish8(a, b, out)));
  } else {
    return narrow8(a, b);
  }
}

// 16 outputs of epilogue4 as bytes.
template <RoundingMode Mode, bool Plain>
inline uint8x16_t epilogue_bytes16(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d, const OutputLanes& out) {
  if constexpr (Mode == RoundingMode::fp32) {
    return vaddq_u8(narrow16(a, b, c, d), out.zero_point_bytes);
  } else if constexpr (kClampsIn16Bits<Mode>) {
    return to_bytes16(a, b, c, d, out);
  } else {
    return narrow16(a, b, c, d);
  }
}

}  // namespace qtune::detail::neon
