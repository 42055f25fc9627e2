// The requantization parameters of one operator, flattened once into the form the kernels want:
// structure-of-arrays per channel, every derived constant precomputed, arrays padded so that a
// 16-lane vector load starting at any valid channel index stays in bounds. Also the scalar
// evaluation of every RoundingMode from primitive values, shared by requantize_reference() and
// the scalar kernels (definitions: docs/requantization.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "qtune/kernels/quant.h"

namespace qtune::detail {

// The fp32 epilogue with a signed offset: round_half_even(clamp(fma(float(x), s, copysign(o, x)))),
// the exact form of tflite's double rounding for most scales (quant/fp32_equivalent.h). An
// internal mode of plans and kernels only, never in RequantParams, keys or anything printed: a
// RoundingMode value outside the named ones, so that with_rounding_mode() hands it to the kernels
// as a compile-time constant like the others.
inline constexpr RoundingMode kFp32Offset = static_cast<RoundingMode>(100);
// The centred fp32 epilogue: floor(clamp(fma(float(x) - X0, s, b) rounded down)) + C, the result
// computed less the range's centre C about the accumulator X0 that maps to it, with a constant
// addend b (which holds the 1/2 of the rounding): the exact form of nearly every scale where the
// clamp range lies far from zero, such as a fused ReLU's [0, 255] (quant/fp32_equivalent.h).
// Internal like kFp32Offset.
inline constexpr RoundingMode kFp32Centred = static_cast<RoundingMode>(101);
// The modes the kernels compute in float (fp32, fp32 with an offset, centred).
template <RoundingMode Mode>
inline constexpr bool kFloatEpilogue = Mode == RoundingMode::fp32 || Mode == kFp32Offset || Mode == kFp32Centred;

// The scalar math of every mode, from primitive values. Each returns the value BEFORE the zero
// point is added; requantize_scalar() clamps it to [qmin - zp, qmax - zp] and adds zp.
namespace scalar {

// gemmlowp SaturatingRoundingDoublingHighMul: round(a*b / 2^31), ties up, computed in 64 bits;
// the only overflow (a == b == INT32_MIN) saturates to INT32_MAX. floor((p + 2^30) / 2^31) is
// the same value as gemmlowp's "nudge then truncating division" (docs/requantization.md).
inline std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const std::int64_t p = static_cast<std::int64_t>(a) * b;
  return static_cast<std::int32_t>((p + (std::int64_t{1} << 30)) >> 31);
}

// gemmlowp RoundingDivideByPOT: x / 2^r rounded to nearest, ties away from zero; r in [0, 31].
inline std::int32_t rdpot(std::int32_t x, int r) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << r) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> r) + (remainder > threshold ? 1 : 0);
}

// TFLite's scalar left shift: wraps (computed on uint32 so that it is defined behaviour).
inline std::int32_t wrapping_shift_left(std::int32_t x, int l) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << l);
}

// srshl by -r (Arm rounding shift right): ties toward +inf, written so that it cannot overflow.
inline std::int32_t rounding_shift_right_half_up(std::int32_t t, int r) {
  return r == 0 ? t : (t >> r) + ((t >> (r - 1)) & 1);
}

inline std::int64_t tflite(std::int32_t acc, std::int32_t m, int l, int r) {
  return rdpot(srdhm(wrapping_shift_left(acc, l), m), r);
}

inline std::int64_t arm(std::int32_t acc, std::int32_t m, int l, int r) {
  return rounding_shift_right_half_up(srdhm(wrapping_shift_left(acc, l), m), r);
}

// Single rounding of acc * M / 2^s, s = 31 - e in [1, 62]: exact in int64 (|acc * M| < 2^62).
inline std::int64_t upward(std::int32_t acc, std::int32_t m, int s) {
  const std::int64_t p = static_cast<std::int64_t>(acc) * m;
  return (p + (std::int64_t{1} << (s - 1))) >> s;
}

inline std::int64_t tonearest(std::int32_t acc, std::int32_t m, int s) {
  const std::int64_t p = static_cast<std::int64_t>(acc) * m;
  return (p + (std::int64_t{1} << (s - 1)) - (p < 0 ? 1 : 0)) >> s;
}

// The float path: (float)acc * scale, clamped in float exactly like maxps/minps (a NaN product,
// possible only from 0 * inf, becomes lo), then rounded half to even like cvtps2dq.
inline std::int32_t fp32(std::int32_t acc, float scale, float lo, float hi) {
  float f = static_cast<float>(acc) * scale;
  f = f > lo ? f : lo;  // _mm_max_ps(f, lo)
  f = f < hi ? f : hi;  // _mm_min_ps(f, hi)
  return static_cast<std::int32_t>(__builtin_nearbyintf(f));
}

// kFp32Offset: scalar::fp32 with the product fused with +-offset (the sign of acc; +offset for 0),
// like vfmadd with the sign merged into the addend.
inline std::int32_t fp32_offset(std::int32_t acc, float scale, float offset, float lo, float hi) {
  const float x = static_cast<float>(acc);
  float f = __builtin_fmaf(x, scale, __builtin_copysignf(offset, x));
  f = f > lo ? f : lo;
  f = f < hi ? f : hi;
  return static_cast<std::int32_t>(__builtin_nearbyintf(f));
}

// kFp32Centred, less its centre: floor(t * scale + addend) for t = float(acc) - origin (rounded to
// nearest, exact below 2^24), clamped to [lo, hi]. The kernels round the fma down and convert
// rounding down (AVX-512's embedded rounding), which is this floor: rounding down to a float never
// crosses an integer. Here exactly: t * scale is exact in double (24 + 24 bits) and TwoSum gives
// the sum's rounding error, which decides the floor where the double sum is an integer.
inline std::int32_t fp32_centred(std::int32_t acc, float scale, float origin, float addend, std::int32_t lo,
                                 std::int32_t hi) {
  const double product = static_cast<double>(static_cast<float>(acc) - origin) * scale;
  const double b = addend;
  const double sum = product + b;
  const double b_part = sum - product;
  const double error = (product - (sum - b_part)) + (b - b_part);  // product + b == sum + error
  double floor = __builtin_floor(sum);
  if (floor == sum && error < 0) floor -= 1;
  return floor < lo ? lo : floor > hi ? hi : static_cast<std::int32_t>(floor);
}

inline std::int32_t clamp_then_offset(std::int64_t v, std::int32_t lo, std::int32_t hi, std::int32_t zp) {
  const std::int64_t c = v < lo ? lo : (v > hi ? hi : v);
  return static_cast<std::int32_t>(c) + zp;
}

}  // namespace scalar

// What the kernels read of a RequantPlan: the same fields, with the per-channel arrays as raw
// pointers, in a small trivially copyable struct. Kernels hold it in a local copy: the u8/s8
// stores of an epilogue may alias anything (char types), so constants read through a reference to
// the plan would be reloaded and re-broadcast after every store, while a local whose address
// never escapes stays in registers.
struct RequantConstants {
  RoundingMode mode = RoundingMode::tflite;
  // What an epilogue clamps its value to ([lo, hi]) and adds to it (zero_point): qmin - zp,
  // qmax - zp and zp, or for kFp32Centred (RequantPlan::float_centre C, the value computed less C)
  // qmin - zp - C, qmax - zp - C and zp + C.
  std::int32_t zero_point = 0;
  std::int32_t qmin = 0, qmax = 0;
  std::int32_t lo = 0, hi = 0;
  bool per_channel = false;
  std::size_t channel_count = 1;
  const std::int32_t* multiplier = nullptr;
  const std::int32_t* left_shift = nullptr;
  const std::int32_t* right_shift = nullptr;
  const std::int32_t* rdpot_mask = nullptr;
  const std::int32_t* rdpot_half = nullptr;
  const std::int32_t* arm_round_shift = nullptr;
  const std::int32_t* product_shift = nullptr;
  const std::int32_t* product_shift_m1 = nullptr;
  const std::int32_t* rounding_pre_shift = nullptr;
  const std::int32_t* rounding_neg_post_shift = nullptr;
  const std::int32_t* tie_mask = nullptr;
  const std::int32_t* tie_bits = nullptr;
  const float* scale = nullptr;
  const float* fp32_offset = nullptr;  // kFp32Offset: o of each channel (>= 0); kFp32Centred: b
  const float* fp32_origin = nullptr;  // kFp32Centred: X0 of each channel
  // 64-bit constants of the one-shift form of tflite and arm (RequantPlan::shift_add), by channel
  // parity: [c % 2][c / 2] holds channel c's, so that the even and the odd lanes of a vector at
  // any channel are both contiguous 64-bit loads.
  const std::int64_t* shift_add[2] = {nullptr, nullptr};
  const std::int64_t* shift_sub[2] = {nullptr, nullptr};
  const std::int64_t* shift_count[2] = {nullptr, nullptr};

  // Whether some channel's tflite/arm left shift l is non-zero (multipliers of 1 or more).
  bool any_left_shift = false;
  // Whether every channel's scale lies below 1/2 (e <= -1: l = 0, r >= 1, s >= 32), as every
  // requantization of a trained network's layer does: the Arm epilogues' short forms need it
  // (arm/neon/requant_neon.h).
  bool every_scale_below_half = false;
  // Whether no int32 accumulator's product p = x * M lies halfway between two multiples of 2^s, in
  // any channel: a tie needs p's lowest set bit at 2^(s-1), and x brings 0 to 31 trailing zeros to
  // M's z, so a channel with s - 1 outside [z, z + 31] (or M = 0) never ties. True for the scales
  // of trained layers (s >= 33 + z). tonearest and upward differ only at ties, so such a plan's
  // tonearest is its upward, and the Arm epilogues give it upward's short form.
  bool product_never_ties = false;

  std::size_t channels() const { return channel_count; }
  std::size_t index(std::size_t c) const { return per_channel ? c : 0; }
};

// Whether the short u8 epilogue of a family (Vector::requantize_u8_full) may replace the full one
// for `mode`: an upper clamp of 255 is what the unsigned-saturating 8-bit store does anyway, and
// without left shifts (tflite, arm) the product needs no shift first. Offered for tflite and fp32,
// the modes of TFLite's uint8 models and of ONNX / oneDNN, and arm, which tflite layers with a
// fused ReLU compute (RequantPlan::make), where it saves two or three of the 17 instructions per
// 16 outputs that small-K layers spend mostly in their epilogue.
inline bool u8_full_range_epilogue(const RequantConstants& plan, RoundingMode mode) {
  if (plan.qmax != 255) return false;
  const bool one_shift = mode == RoundingMode::tflite || mode == RoundingMode::arm;
  const bool in_float = mode == RoundingMode::fp32 || mode == kFp32Offset || mode == kFp32Centred;
  return in_float || (one_shift && !plan.any_left_shift);
}

// Which exactly equivalent float forms a plan may take for an integer rounding mode
// (RequantPlan::make, quant/fp32_equivalent.h): none (Arm, whose sqrdmulh + srshl are as short
// as the float path, and the scalar kernels), those that round to nearest (fp32, kFp32Offset: the
// x86 families), or kFp32Centred as well, which needs each instruction's own rounding direction
// (AVX-512's embedded rounding), or kFp32Centred only in the fused epilogues that fold its origin
// X0 (centred_origin_foldable): AVX2 rounds down only through MXCSR, which such an epilogue sets
// for a whole tile (avx2::RoundDownScope), and the folded form converts acc - X0 exactly where the
// result is not clamped, so no step of it depends on the rounding of a conversion or subtraction.
enum class FloatForms { none, round_to_nearest, directed_rounding, centred_when_folded };

// The forms a plan may take where the kernel does not fold a centred plan's origin (the separate
// requantization, kernels without a fused folding epilogue).
inline FloatForms unfolded_forms(FloatForms forms) {
  return forms == FloatForms::centred_when_folded ? FloatForms::round_to_nearest : forms;
}

struct RequantPlan {
  // Padding of every per-channel array: a vector load of kMaxLanes values starting at any
  // channel index <= channels() stays in bounds.
  static constexpr std::size_t kMaxLanes = 16;

  RoundingMode mode = RoundingMode::tflite;
  std::int32_t zero_point = 0;
  std::int32_t qmin = 0, qmax = 0;
  std::int32_t lo = 0, hi = 0;  // qmin - zp, qmax - zp: the clamp before adding zp
  bool per_channel = false;
  std::size_t channel_count = 1;

  // One entry per channel (per-tensor: kMaxLanes copies of the single value), then padding.
  // e = shift of FixedPointMultiplier; l = max(e, 0), r = max(-e, 0), s = 31 - e.
  std::vector<std::int32_t> multiplier;        // M in [2^30, 2^31) or 0
  std::vector<std::int32_t> left_shift;        // l in [0, 30]
  std::vector<std::int32_t> right_shift;       // r in [0, 31]
  std::vector<std::int32_t> rdpot_mask;        // 2^r - 1 (tflite)
  std::vector<std::int32_t> rdpot_half;        // (2^r - 1) >> 1 (tflite)
  std::vector<std::int32_t> arm_round_shift;   // max(r - 1, 0) (arm on AVX2)
  std::vector<std::int32_t> product_shift;     // s = 31 - e in [1, 62]: shift of the 64-bit product
  std::vector<std::int32_t> product_shift_m1;  // s - 1 (upward, tonearest)
  // upward and tonearest in 32-bit lanes for every scale (Arm): x = acc << pre, saturating, then
  // sqdmulh's floor(x * M / 2^31) rounded by 2^post, with s = 31 + post - pre, post >= 1
  // (requant_neon.h says why that is exact).
  std::vector<std::int32_t> rounding_pre_shift;       // max(32 - s, 0)
  std::vector<std::int32_t> rounding_neg_post_shift;  // -max(s - 31, 1)
  // tonearest's ties of negative products: acc is one exactly where (acc & tie_mask) == tie_bits,
  // that is acc < 0 with its lowest set bit at 2^t, t = s - 1 - (M's trailing zeros), so that
  // p = acc * M lies halfway between two multiples of 2^s (no t in [0, 31]: a pattern no acc has).
  std::vector<std::int32_t> tie_mask;
  std::vector<std::int32_t> tie_bits;
  std::vector<float> scale;                    // scales_f32 (fp32), or the equivalent scales
  std::vector<float> fp32_offset;              // kFp32Offset: o >= 0 of each channel; kFp32Centred: b
  std::vector<float> fp32_origin;              // kFp32Centred: X0 of each channel (else 0)
  // tflite and arm as one rounding of the 64-bit product p = x * M (x = acc << l): both double
  // roundings equal (p + add - [p < -2^30] * sub) >> count, with add = 2^30 + (r > 0 ? 2^(30+r) : 0),
  // sub = (r > 0 ? 2^31 : 0) for tflite (0 for arm: ties up need no correction), count = 31 + r
  // (docs/requantization.md, "one shift"). Stored by channel parity (RequantConstants), each half
  // padded for an 8-lane 64-bit load at any channel.
  std::vector<std::int64_t> shift_add[2], shift_sub[2], shift_count[2];
  bool any_left_shift = false;  // some channel's l > 0
  bool every_scale_below_half = false;  // every channel's e <= -1 (RequantConstants)
  bool product_never_ties = false;      // no channel's product can tie (RequantConstants)

  std::size_t channels() const { return channel_count; }
  // The array index holding channel c's constants (per-tensor plans ignore c).
  std::size_t index(std::size_t c) const { return per_channel ? c : 0; }

  // The integer mode this plan computes in float (mode fp32, kFp32Offset or kFp32Centred, scale and
  // fp32_offset the equivalent forms): set by make() where every channel has an fp32_equivalent. The
  // results are the same for every accumulator; only the instructions differ (fp32_equivalent.h).
  std::optional<RoundingMode> fp32_equivalent_of;
  // kFp32Centred's C (fp32_equivalent.h): the kernels compute the result less it (constants()
  // moves lo, hi and the zero point); 0 for every other plan.
  std::int32_t float_centre = 0;
  // A tflite plan whose clamp keeps no negative result (lo >= 0) computes arm instead: the same
  // outputs, without the tie correction of negative results (make()).
  bool arm_equivalent_of_tflite = false;

  // Builds the plan; throws std::invalid_argument if p is inconsistent (sizes, shifts, bounds).
  // An integer mode whose every channel has an exactly equivalent float form that `forms` admits
  // becomes an fp32, kFp32Offset or kFp32Centred plan (for instruction sets whose float epilogue is
  // the cheaper one: IsaRow::float_forms).
  static RequantPlan make(const RequantParams& p, FloatForms forms = FloatForms::none);

  // The kernels' view; valid while this plan lives and is not modified.
  RequantConstants constants() const;

 private:
  void use_fp32_equivalent(const RequantParams& p, FloatForms forms);
};

// Whether a kernel may start a kFp32Centred plan's accumulators from terms less each channel's
// origin X0 and convert acc - X0, computed in int32, where the plan converts float(acc) - X0:
// true where the two give the same result for every accumulator of magnitude up to
// `max_abs_accumulator` (what the layer can produce), that is
//  - acc - X0 never wraps: max_abs_accumulator + |X0| < 2^31;
//  - both are exact, hence equal, wherever the result is not clamped: there |acc| <= reach =
//    (max(|lo|, |hi|) + 2) / s plus a margin, and reach + |X0| < 2^24 keeps acc and acc - X0
//    floats. Beyond reach both forms are clamped (each is monotone in acc, and they agree at
//    reach).
// Kernels that fold must then not be given the plan where this is false (RequantPlan::make with
// FloatForms::round_to_nearest has no centred form).
bool centred_origin_foldable(const RequantPlan& plan, double max_abs_accumulator);

// The largest |a - zero_point| over the values a of an 8-bit type (u8: [0, 255], s8: [-128, 127]):
// a factor of the largest accumulator that centred_origin_foldable takes.
double max_abs_offset(DType type, std::int32_t zero_point);

// One element through the plan, channel c (ignored for per-tensor plans): the scalar kernel.
// The mode is a template parameter so that loops can hoist the switch (with_rounding_mode).
template <RoundingMode Mode>
inline std::int32_t requantize_scalar(std::int32_t acc, const RequantConstants& plan, std::size_t c) {
  const std::size_t i = plan.index(c);
  const std::int32_t m = plan.multiplier[i];
  std::int64_t v = 0;
  if constexpr (Mode == RoundingMode::tflite) {
    v = scalar::tflite(acc, m, plan.left_shift[i], plan.right_shift[i]);
  } else if constexpr (Mode == RoundingMode::upward) {
    v = scalar::upward(acc, m, plan.product_shift[i]);
  } else if constexpr (Mode == RoundingMode::tonearest) {
    v = scalar::tonearest(acc, m, plan.product_shift[i]);
  } else if constexpr (Mode == RoundingMode::arm) {
    v = scalar::arm(acc, m, plan.left_shift[i], plan.right_shift[i]);
  } else if constexpr (Mode == kFp32Centred) {
    return scalar::fp32_centred(acc, plan.scale[i], plan.fp32_origin[i], plan.fp32_offset[i], plan.lo, plan.hi) +
           plan.zero_point;
  } else if constexpr (Mode == kFp32Offset) {
    return scalar::fp32_offset(acc, plan.scale[i], plan.fp32_offset[i], static_cast<float>(plan.lo),
                               static_cast<float>(plan.hi)) +
           plan.zero_point;
  } else {
    static_assert(Mode == RoundingMode::fp32);
    return scalar::fp32(acc, plan.scale[i], static_cast<float>(plan.lo), static_cast<float>(plan.hi)) +
           plan.zero_point;
  }
  return scalar::clamp_then_offset(v, plan.lo, plan.hi, plan.zero_point);
}

// Calls f.template operator()<Mode>() with `mode` as a compile-time constant: the one switch of
// every kernel that instantiates its requantization per rounding mode, so that the mode is decided
// once per call (a tile, a row) and never per vector. Inlined or not as the compiler sees fit:
// kernels that pick their common forms before it keep the rest out of their loops this way.
template <class F>
decltype(auto) with_rounding_mode(RoundingMode mode, F&& f);

// The same switch, always inlined into its caller: for the GEMM tile, whose accumulators must
// stay in registers through the dispatch into an always-inlined epilogue (as a call they went
// through memory and the 12x32 and 8x48 tiles' K loops lost their registers).
template <class F>
__attribute__((always_inline)) inline decltype(auto) with_rounding_mode_inlined(RoundingMode mode, F&& f) {
  // On the underlying value: kFp32Offset and kFp32Centred are no enumerators (a case of one would
  // warn under -Wswitch).
  constexpr auto value = [](RoundingMode m) { return static_cast<int>(m); };
  switch (value(mode)) {
    case value(RoundingMode::tflite): return f.template operator()<RoundingMode::tflite>();
    case value(RoundingMode::upward): return f.template operator()<RoundingMode::upward>();
    case value(RoundingMode::tonearest): return f.template operator()<RoundingMode::tonearest>();
    case value(RoundingMode::arm): return f.template operator()<RoundingMode::arm>();
    case value(RoundingMode::fp32): return f.template operator()<RoundingMode::fp32>();
    case value(kFp32Offset): return f.template operator()<kFp32Offset>();
    case value(kFp32Centred): return f.template operator()<kFp32Centred>();
    default: break;
  }
  __builtin_unreachable();  // RequantPlan::make admits no other mode
}

template <class F>
decltype(auto) with_rounding_mode(RoundingMode mode, F&& f) {
  return with_rounding_mode_inlined(mode, static_cast<F&&>(f));
}

}  // namespace qtune::detail
