// The fp32 scale equivalent to an integer rounding mode (see fp32_equivalent.h for the proof).
#include "quant/fp32_equivalent.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "quant/requant_plan.h"

namespace qtune::detail {
namespace {

// The integer mode for one channel, clamped to [lo, hi] (requantize_scalar without the zero point).
struct IntegerMode {
  RoundingMode mode;
  FixedPointMultiplier fixed;
  std::int32_t lo, hi;

  std::int32_t operator()(std::int32_t x) const {
    const std::int32_t m = fixed.multiplier, e = fixed.shift;
    const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0, s = 31 - e;
    std::int64_t v = 0;
    switch (mode) {
      case RoundingMode::tflite: v = scalar::tflite(x, m, l, r); break;
      case RoundingMode::arm: v = scalar::arm(x, m, l, r); break;
      case RoundingMode::upward: v = scalar::upward(x, m, s); break;
      case RoundingMode::tonearest: v = scalar::tonearest(x, m, s); break;
      case RoundingMode::fp32: break;  // not called: fp32_equivalent_scale refuses fp32
    }
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, lo, hi));
  }
};

constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
// Half the window around the estimated crossing: tflite's first rounding (at 2^31, before the
// shift) moves the crossing by less than one accumulator for M >= 2^30; three leave room.
constexpr std::int64_t kReach = 3;

// The window of accumulators [a, b] (within int32) around which g crosses level k:
// g crosses k near x * M / 2^s = k - 1/2.
struct Window {
  std::int64_t a, b;
};

Window crossing_window(const IntegerMode& g, std::int64_t k) {
  const int s = 31 - g.fixed.shift;
  const long double estimate = std::ldexp(static_cast<long double>(k) - 0.5L, s) / g.fixed.multiplier;
  const long double centre = std::floor(std::clamp<long double>(estimate, kMin - 2 * kReach, kMax + 2 * kReach));
  return {std::clamp<std::int64_t>(static_cast<std::int64_t>(centre) - kReach, kMin, kMax),
          std::clamp<std::int64_t>(static_cast<std::int64_t>(centre) + kReach, kMin, kMax)};
}

// Whether f (an fp32 form, monotone) crosses every level k in (lo, hi] where g does
// (fp32_equivalent.h).
template <class F>
bool crosses_alike(const IntegerMode& g, const F& f) {
  for (std::int64_t k = std::int64_t{g.lo} + 1; k <= g.hi; ++k) {
    const auto [a, b] = crossing_window(g, k);
    for (std::int64_t x = a; x <= b; ++x) {
      if (f(static_cast<std::int32_t>(x)) != g(static_cast<std::int32_t>(x))) return false;
    }
    // The crossing lies inside [a, b] (or beyond an int32 limit, for both functions alike).
    if (a != kMin && g(static_cast<std::int32_t>(a)) >= k) return false;
    if (b != kMax && g(static_cast<std::int32_t>(b)) < k) return false;
  }
  return true;
}

// The addends with which the fp32 form, computed exactly, lands on the side of every boundary
// k - 1/2 where g puts x: an interval, empty where the scale s cannot work. Its middle is the addend
// furthest from every boundary, so the one most likely to survive fma's rounding (the nominal
// 2^-(r+1) can sit anywhere in it; for single roundings 0 is an end of it). Uncentred (no origin):
// offsets o >= 0 that carry x's sign, x s + sign(x) o, rounded to nearest; centred: one constant
// addend b for every x, (x - origin) s + b floored, against the boundaries k - centre (b holds the
// rounding's 1/2), where any b of the interval is exact. Products of a float scale and a float fit
// long double's 64-bit significand exactly.
std::optional<float> middle_addend(const IntegerMode& g, float s, std::optional<float> origin, std::int32_t centre) {
  constexpr long double kInf = std::numeric_limits<long double>::infinity();
  const bool signed_offset = !origin;
  long double lowest = signed_offset ? 0.0L : -kInf, highest = kInf;
  // t s + addend >= c (at_least) or < c, as a bound on the offset or addend.
  const auto bound = [&](std::int64_t x, long double c, bool at_least) {
    const float xf = static_cast<float>(x);
    const float t = origin ? xf - *origin : xf;
    const long double product = static_cast<long double>(t) * s;
    const bool plus = !signed_offset || !std::signbit(xf);  // copysign(o, +0.0f) is +o
    if (at_least == plus) {
      lowest = std::max(lowest, plus ? c - product : product - c);
    } else {
      highest = std::min(highest, plus ? c - product : product - c);
    }
  };
  for (std::int64_t k = std::int64_t{g.lo} + 1; k <= g.hi; ++k) {
    const auto [a, b] = crossing_window(g, k);
    std::int64_t first = a;  // the first accumulator at which g reaches k
    while (first <= b && g(static_cast<std::int32_t>(first)) < k) ++first;
    if (first == a || first > b) {
      if (a == kMin || b == kMax) continue;  // beyond an int32 limit: crosses_alike decides
      return std::nullopt;
    }
    const long double c = origin ? static_cast<long double>(k) - centre : static_cast<long double>(k) - 0.5L;
    bound(first, c, true);
    bound(first - 1, c, false);
  }
  if (!(lowest < highest) || std::isinf(lowest) || std::isinf(highest)) return std::nullopt;
  const float middle = static_cast<float>((lowest + highest) / 2);
  return std::isnormal(middle) ? std::optional<float>(middle) : std::nullopt;
}

// v and its float neighbours, nearest first, then outward: another rounding of the same real
// value can move a product off a boundary where the nearest lands on the wrong side.
std::array<float, 5> around(float v) {
  constexpr float kUp = std::numeric_limits<float>::infinity();
  const float up = std::nextafter(v, kUp), down = std::nextafter(v, 0.0f);
  return {v, up, down, std::nextafter(up, kUp), std::nextafter(down, 0.0f)};
}

}  // namespace

std::int32_t float_centre(std::int32_t lo, std::int32_t hi) {
  const std::int32_t centre = static_cast<std::int32_t>((std::int64_t{lo} + hi + 1) / 2);
  return centre > 0 ? centre : 0;
}

std::optional<Fp32Form> fp32_equivalent(RoundingMode mode, FixedPointMultiplier fixed, std::int32_t lo,
                                        std::int32_t hi, Centring centring) {
  if (mode == RoundingMode::fp32 || fixed.multiplier <= 0 || lo > hi) return std::nullopt;
  // tflite and arm: x << l wraps for e > 0 (not monotone). arm with e < 0 would need an offset of
  // one sign for every result (its roundings both break ties up): not offered.
  const bool twice = mode == RoundingMode::tflite || mode == RoundingMode::arm;
  if (twice && fixed.shift > 0) return std::nullopt;
  if (mode == RoundingMode::arm && fixed.shift < 0) return std::nullopt;
  const IntegerMode g{mode, fixed, lo, hi};
  const long double real = std::ldexp(static_cast<long double>(fixed.multiplier), fixed.shift - 31);
  const float nearest = static_cast<float>(real);
  // tflite with r = -e > 0: its first rounding moves the boundaries by 2^-(r+1) away from zero.
  const float shift_offset = mode == RoundingMode::tflite && fixed.shift < 0 ? std::ldexp(1.0f, fixed.shift - 1) : 0.0f;
  if (centring == Centring::centred) {
    const std::int32_t centre = float_centre(lo, hi);
    if (centre == 0) return std::nullopt;  // the uncentred forms are these
    // tflite with r > 0 moves the boundaries of negative results the other way (its offset takes
    // x's sign), which one constant addend cannot follow: not tried where results below 0 remain.
    if (shift_offset != 0.0f && lo < 0) return std::nullopt;
    // The accumulator at the centre; an integer below 2^24, so that float(x) - origin is exact
    // for every |x| < 2^24.
    const long double origin_ld = std::nearbyint(centre / real);
    if (!(origin_ld < 0x1p24L)) return std::nullopt;
    const float origin = static_cast<float>(origin_ld);
    // Rounded down, every addend of the exact interval is exact: no nominal candidates first.
    for (const float scale : around(nearest)) {
      if (!std::isnormal(scale)) continue;
      const std::optional<float> addend = middle_addend(g, scale, origin, centre);
      if (addend && crosses_alike(g, [&](std::int32_t x) {
            return scalar::fp32_centred(x, scale, origin, *addend, lo - centre, hi - centre) + centre;
          })) {
        return Fp32Form{scale, *addend, centre, origin};
      }
    }
    return std::nullopt;
  }
  const float lo_f = static_cast<float>(lo), hi_f = static_cast<float>(hi);
  for (const float scale : around(nearest)) {
    if (!std::isnormal(scale)) continue;
    if (shift_offset == 0.0f) {
      if (crosses_alike(g, [&](std::int32_t x) { return scalar::fp32(x, scale, lo_f, hi_f); })) {
        return Fp32Form{scale, 0.0f};
      }
      continue;
    }
    for (const float offset : around(shift_offset)) {
      if (!std::isnormal(offset)) continue;
      if (crosses_alike(g, [&](std::int32_t x) { return scalar::fp32_offset(x, scale, offset, lo_f, hi_f); })) {
        return Fp32Form{scale, offset};
      }
    }
  }
  // Where the nominal forms land an accumulator within rounding error of a boundary, the offset in
  // the middle of the exact interval has the most room (any mode: a single rounding may take an
  // offset too, at two instructions more than plain fp32).
  for (const float scale : around(nearest)) {
    if (!std::isnormal(scale)) continue;
    const std::optional<float> offset = middle_addend(g, scale, std::nullopt, 0);
    if (offset && crosses_alike(g, [&](std::int32_t x) { return scalar::fp32_offset(x, scale, *offset, lo_f, hi_f); })) {
      return Fp32Form{scale, *offset};
    }
  }
  return std::nullopt;
}

}  // namespace qtune::detail
