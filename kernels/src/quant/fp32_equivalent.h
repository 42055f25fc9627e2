// An fp32 form (a scale, and for tflite an offset) that computes an integer rounding mode exactly:
// the strength reduction behind the fp32 epilogue of integer-rounding layers on x86
// (RequantPlan::make).
//
// Requantizing 16 lanes in the integer modes takes two 32x32->64-bit products (even and odd
// lanes), a rounding and a shift on each half and a re-interleave: 11 to 15 instructions against
// the fp32 path's 6 (convert, multiply, clamp, convert back). Small-K layers (1x1 and depthwise
// convolutions) spend about half their time there. For most multipliers one float scale s gives
// every int32 accumulator the same clamped result as the integer mode, and that can be proven per
// channel, for all 2^32 accumulators, without trying them:
//
//  - Both functions, clamped to [lo, hi], are monotone non-decreasing in the accumulator x: the
//    integer modes for a positive multiplier without left shift (tflite and arm wrap x << l), and
//    fp32 because int -> float, the multiplication by s > 0, the clamp and the round-to-nearest-
//    even conversion are each monotone.
//  - Two monotone functions from int32 to [lo, hi] are equal iff, for every k in (lo, hi], they
//    cross k at the same accumulator: min{x : f(x) >= k} = min{x : g(x) >= k} (or neither does).
//  - The integer mode crosses k within a few units of (k - 1/2) * 2^s / M. Where f and g agree on
//    every accumulator of a small window around that point, and g is below k at its lower end and
//    at least k at its upper end, both cross k at the same place inside it.
//
// So (hi - lo) windows of 7 accumulators settle it. A candidate fails where some integer
// accumulator lands within float rounding error of a rounding boundary, or on an exact tie the two
// break differently (scale 0.5: upward breaks ties up, fp32 to even); the nearest float to
// M * 2^-s and two neighbours on each side are tried.
//
// tflite with a right shift r > 0 (every scale below 0.5): its first rounding, at 2^31 before the
// shift by 2^r, moves every boundary by 2^-(r+1) output units away from zero, that is by 2^30 / M
// (0.5 to 1) accumulators, which no scale alone reproduces. The fp32 form with a signed offset
// (kFp32Offset), fma(x, s, copysign(o, x)) with o near 2^-(r+1), does: monotone as well (o >= 0),
// proven the same way, and 2 instructions more than plain fp32, still half of tflite's.
// Where the nominal candidates fail, the offset in the middle of the interval of offsets that put
// every boundary's accumulators on the right side (computed exactly, for each candidate scale) is
// tried, in any mode: it has the most room for fma's rounding. That room is about s / (hi - lo)
// against fma's error of up to 2^-18 near the ends of an int8 range, so small scales fail most:
// of random scales near 1e-3 96% have a form (87% with the nominal candidates only), near 3e-4
// 64% (50%), near 1e-4 27% (23%); above 3e-3 all. arm with r > 0 would need an offset of one sign
// for every result: not offered.
//
// Centred forms (kFp32Centred): the scale's float error grows with x and fma's with the result, so
// a range far from zero loses room. A fused ReLU's uint8 output (zero point 0, clamp [0, 255])
// spans accumulators up to 255.5 / s instead of +-128 / s, and its results above 128 have a unit
// in the last place twice that below: of random tflite scales near 1e-3 about a third have a form
// in [0, 255] against nearly all in [-128, 127]. A centred form moves both back and rounds so that
// fma's rounding never matters: it computes floor(fma(float(x) - X0, s, b)) with X0 the accumulator
// (an integer) that maps to the middle C of the range, the fma and the conversion both rounding
// down (a float rounded down never crosses an integer), clamps to [lo - C, hi - C] and adds C back
// with the zero point. So every addend b of the exact interval (computed as above, with the
// boundaries at integers and the 1/2 in b) is exact, and a scale fails only where the float scale's
// own error leaves no interval: of random tflite scales in [0, 255] near 1e-3 99% have a form
// (36% uncentred), near 5e-4 86% (17%), near 3e-4 64% (5%); Fp32Equivalent.CentredForms* prints
// its own count. One subtraction in place of the offset's sign merge,
// so as cheap as kFp32Offset, but only with AVX-512's per-instruction rounding (FloatForms). Its
// addend carries no sign of x, so for tflite with r > 0 it is exact only where the negative results
// are clamped away (lo >= 0: the fused ReLU), which the proof decides per scale (monotone as well:
// float(x) - X0 rounds monotonically); single roundings take it anywhere.
#pragma once

#include <cstdint>
#include <optional>

#include "qtune/kernels/quant.h"

namespace qtune::detail {

// What fp32 computes instead of the integer mode: scale and the offset of kFp32Offset (0: plain
// fp32), or for a centred form (centre > 0) the kFp32Centred constants, offset its addend: the
// result less `centre` is scalar::fp32_centred(x, scale, origin, offset, lo - centre, hi - centre).
struct Fp32Form {
  float scale = 0.0f;
  float offset = 0.0f;
  std::int32_t centre = 0;
  float origin = 0.0f;
};

enum class Centring { uncentred, centred };

// The centre of the centred forms for the clamp [lo, hi]: its middle, where that is above 0; 0
// (no centred form) where the range is centred already.
std::int32_t float_centre(std::int32_t lo, std::int32_t hi);

// An fp32 form with which scalar::fp32 (offset 0), scalar::fp32_offset or (centred)
// scalar::fp32_centred equals the clamped integer mode (scalar::tflite / arm / upward / tonearest,
// then clamped to [lo, hi]) for every int32 accumulator; none where the proof above does not apply
// (mode fp32, a zero multiplier, a left shift in tflite or arm, arm with a right shift) or no
// candidate passes. Centring::centred looks for a centred form only, uncentred for the others
// only: a plan takes one kind for all its channels.
std::optional<Fp32Form> fp32_equivalent(RoundingMode mode, FixedPointMultiplier fixed, std::int32_t lo,
                                        std::int32_t hi, Centring centring = Centring::uncentred);

}  // namespace qtune::detail
