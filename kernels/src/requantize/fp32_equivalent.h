// An fp32 scale that computes an integer rounding mode exactly: the strength reduction behind the
// fp32 epilogue of integer-rounding layers on x86 (RequantPlan::make).
//
// Requantizing 16 lanes in the integer modes takes two 32x32->64-bit products (even and odd
// lanes), a rounding and a shift on each half and a re-interleave: 11 to 15 instructions against
// the fp32 path's 6 (convert, multiply, clamp, convert back). Small-K layers (1x1 and depthwise
// convolutions) spend about half their time there. For most multipliers of the single roundings
// one float scale s gives every int32 accumulator the same clamped result as the integer mode,
// and that can be proven per channel, for all 2^32 accumulators, without trying them:
//
//  - Both functions, clamped to [lo, hi], are monotone non-decreasing in the accumulator x: the
//    integer modes for a positive multiplier without left shift (tflite and arm wrap x << l; so
//    only l = 0), and fp32 because int -> float, the multiplication by s > 0, the clamp and the
//    round-to-nearest-even conversion are each monotone.
//  - Two monotone functions from int32 to [lo, hi] are equal iff, for every k in (lo, hi], they
//    cross k at the same accumulator: min{x : f(x) >= k} = min{x : g(x) >= k} (or neither does).
//  - The integer mode crosses k within a few units of (k - 1/2) * 2^s / M. Where f and g agree on
//    every accumulator of a small window around that point, and g is below k at its lower end and
//    at least k at its upper end, both cross k at the same place inside it.
//
// So (hi - lo) windows of 7 accumulators settle it. A candidate scale fails where some integer
// accumulator lands within float rounding error of a rounding boundary; the nearest float to
// M * 2^-s and its neighbours are tried. For the single roundings (upward, tonearest) about 80% of
// random scales in [1e-4, 0.5] with an int8 output range have one.
//
// Not tflite or arm with a right shift r > 0, the usual case: their first rounding (at 2^31, then
// a second by 2^r) moves every boundary by 2^-(r+1) output units toward zero for positive and
// away from it for negative results, that is by 2^30 / M, between 0.5 and 1 accumulators, which no
// scale alone reproduces. fma(x, s, copysign(2^-(r+1), x)) does (a prototype found such s and
// offset for 78% of the same random scales); that needs an epilogue with a signed offset, not yet
// written.
#pragma once

#include <cstdint>
#include <optional>

#include "qtune/kernels/quant.h"

namespace qtune::detail {

// A float scale with which scalar::fp32(x, scale, lo, hi) equals the clamped integer mode
// (scalar::tflite / arm / upward / tonearest, then clamped to [lo, hi]) for every int32 x; none
// where the proof above does not apply (mode fp32, a zero multiplier, tflite or arm with a shift)
// or no candidate passes.
std::optional<float> fp32_equivalent_scale(RoundingMode mode, FixedPointMultiplier fixed, std::int32_t lo,
                                           std::int32_t hi);

}  // namespace qtune::detail
