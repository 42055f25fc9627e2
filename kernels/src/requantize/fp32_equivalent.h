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
#pragma once

#include <cstdint>
#include <optional>

#include "qtune/kernels/quant.h"

namespace qtune::detail {

// What fp32 computes instead of the integer mode: scale, and the offset of kFp32Offset (0: plain
// fp32).
struct Fp32Form {
  float scale = 0.0f;
  float offset = 0.0f;
};

// An fp32 form with which scalar::fp32 (offset 0) or scalar::fp32_offset equals the clamped
// integer mode (scalar::tflite / arm / upward / tonearest, then clamped to [lo, hi]) for every
// int32 accumulator; none where the proof above does not apply (mode fp32, a zero multiplier, a
// left shift in tflite or arm, arm with a right shift) or no candidate passes.
std::optional<Fp32Form> fp32_equivalent(RoundingMode mode, FixedPointMultiplier fixed, std::int32_t lo,
                                        std::int32_t hi);

}  // namespace qtune::detail
