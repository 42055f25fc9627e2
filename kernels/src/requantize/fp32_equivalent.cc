// The fp32 scale equivalent to an integer rounding mode (see fp32_equivalent.h for the proof).
#include "requantize/fp32_equivalent.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "requantize/requant_plan.h"

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

// Whether fp32 with `scale` crosses every level k in (lo, hi] where g does (fp32_equivalent.h).
bool crosses_alike(const IntegerMode& g, float scale) {
  const float lo_f = static_cast<float>(g.lo), hi_f = static_cast<float>(g.hi);
  const auto f = [&](std::int64_t x) { return scalar::fp32(static_cast<std::int32_t>(x), scale, lo_f, hi_f); };
  const int s = 31 - g.fixed.shift;
  for (std::int64_t k = std::int64_t{g.lo} + 1; k <= g.hi; ++k) {
    // g crosses k near x * M / 2^s = k - 1/2.
    const long double estimate = std::ldexp(static_cast<long double>(k) - 0.5L, s) / g.fixed.multiplier;
    const long double centre = std::floor(std::clamp<long double>(estimate, kMin - 2 * kReach, kMax + 2 * kReach));
    const std::int64_t a = std::clamp<std::int64_t>(static_cast<std::int64_t>(centre) - kReach, kMin, kMax);
    const std::int64_t b = std::clamp<std::int64_t>(static_cast<std::int64_t>(centre) + kReach, kMin, kMax);
    for (std::int64_t x = a; x <= b; ++x) {
      if (f(x) != g(static_cast<std::int32_t>(x))) return false;
    }
    // The crossing lies inside [a, b] (or beyond an int32 limit, for both functions alike).
    if (a != kMin && g(static_cast<std::int32_t>(a)) >= k) return false;
    if (b != kMax && g(static_cast<std::int32_t>(b)) < k) return false;
  }
  return true;
}

}  // namespace

std::optional<float> fp32_equivalent_scale(RoundingMode mode, FixedPointMultiplier fixed, std::int32_t lo,
                                           std::int32_t hi) {
  if (mode == RoundingMode::fp32 || fixed.multiplier <= 0 || lo > hi) return std::nullopt;
  // tflite and arm: x << l wraps (not monotone) for e > 0, and for e < 0 their second rounding
  // moves every boundary by 2^30 / M accumulators (fp32_equivalent.h): only e = 0 can match.
  if ((mode == RoundingMode::tflite || mode == RoundingMode::arm) && fixed.shift != 0) return std::nullopt;
  const IntegerMode g{mode, fixed, lo, hi};
  const float nearest = static_cast<float>(std::ldexp(static_cast<double>(fixed.multiplier), fixed.shift - 31));
  // The nearest float first, then its neighbours outward: another rounding of the same real scale
  // can move a product off a boundary where the nearest lands on the wrong side.
  constexpr float kUp = std::numeric_limits<float>::infinity();
  const float candidates[] = {nearest,
                              std::nextafter(nearest, kUp),
                              std::nextafter(nearest, 0.0f),
                              std::nextafter(std::nextafter(nearest, kUp), kUp),
                              std::nextafter(std::nextafter(nearest, 0.0f), 0.0f)};
  for (const float candidate : candidates) {
    if (std::isnormal(candidate) && crosses_alike(g, candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace qtune::detail
