// Quantization parameters: names, the fixed-point form of a scale, validation, and the scalar
// reference of every requantization scheme (definitions in docs/requantization.md).
#include "qtune/kernels/quant.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>

#include "quant/requant_plan.h"

namespace qtune {

std::string_view to_string(RoundingMode mode) {
  switch (mode) {
    case RoundingMode::tflite: return "tflite";
    case RoundingMode::upward: return "upward";
    case RoundingMode::tonearest: return "tonearest";
    case RoundingMode::arm: return "arm";
    case RoundingMode::fp32: return "fp32";
  }
  return "?";
}

std::optional<RoundingMode> parse_rounding_mode(std::string_view name) {
  for (RoundingMode mode : kAllRoundingModes) {
    if (to_string(mode) == name) return mode;
  }
  return std::nullopt;
}

bool is_rounding_mode(RoundingMode mode) { return parse_rounding_mode(to_string(mode)) == mode; }

std::string_view to_string(DType type) {
  switch (type) {
    case DType::u8: return "u8";
    case DType::s8: return "s8";
    case DType::s32: return "s32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType type : {DType::u8, DType::s8, DType::s32}) {
    if (to_string(type) == name) return type;
  }
  return std::nullopt;
}

namespace {

std::string describe(double value) {
  std::ostringstream os;
  os.precision(17);
  os << value;
  return os.str();
}

}  // namespace

FixedPointMultiplier quantize_multiplier(double scale) {
  if (std::isnan(scale) || std::isinf(scale) || scale < 0) {
    throw InvalidScale("requantization scale " + describe(scale) +
                       " has no fixed-point form (it must be finite and >= 0)");
  }
  if (scale == 0) return {0, 0};
  int e = 0;
  const double q = std::frexp(scale, &e);  // scale = q * 2^e, q in [0.5, 1)
  std::int64_t m = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
  if (m == (std::int64_t{1} << 31)) {  // q rounded up to 1.0
    m /= 2;
    ++e;
  }
  if (e < -31) return {0, 0};  // underflow: every int32 accumulator requantizes to 0
  if (e > 30) return {INT32_MAX, 30};  // as single-rounding TFLite: keep every shift executable
  return {static_cast<std::int32_t>(m), e};
}

RequantParams RequantParams::make(RoundingMode mode, std::vector<double> scales, std::int32_t zero_point,
                                  std::int32_t qmin, std::int32_t qmax) {
  // The union of the u8 and s8 ranges; callers that know the output type check its exact range.
  constexpr std::int32_t kLowest = -128, kHighest = 255;
  auto check_range = [&](const char* name, std::int32_t v) {
    if (v < kLowest || v > kHighest) {
      throw std::invalid_argument(std::string("requantization ") + name + " " + std::to_string(v) +
                                  " is outside [-128, 255]");
    }
  };
  if (!is_rounding_mode(mode)) {
    throw std::invalid_argument("requantization rounding mode " +
                                std::to_string(static_cast<int>(mode)) + " is not a RoundingMode");
  }
  if (scales.empty()) throw std::invalid_argument("requantization needs at least one scale");
  check_range("qmin", qmin);
  check_range("qmax", qmax);
  check_range("zero point", zero_point);
  if (qmin > qmax) {
    throw std::invalid_argument("requantization qmin " + std::to_string(qmin) + " > qmax " + std::to_string(qmax));
  }
  RequantParams p;
  p.mode = mode;
  p.output_zero_point = zero_point;
  p.qmin = qmin;
  p.qmax = qmax;
  p.fixed.reserve(scales.size());
  p.scales_f32.reserve(scales.size());
  for (std::size_t c = 0; c < scales.size(); ++c) {
    try {
      p.fixed.push_back(quantize_multiplier(scales[c]));
    } catch (const InvalidScale& e) {
      throw InvalidScale("scales[" + std::to_string(c) + "]: " + e.what());
    }
    // Beyond float's range the float scale saturates, so that 0 * scale stays 0 (never NaN).
    p.scales_f32.push_back(scales[c] > FLT_MAX ? FLT_MAX : static_cast<float>(scales[c]));
  }
  p.scales = std::move(scales);
  return p;
}

namespace {

std::string check_requant(const RequantParams& p, std::int32_t lowest, std::int32_t highest,
                          const std::string& range_name) {
  if (!is_rounding_mode(p.mode)) {
    return "requantization rounding mode " + std::to_string(static_cast<int>(p.mode)) +
           " is not a RoundingMode (tflite, upward, tonearest, arm, fp32)";
  }
  const std::size_t n = p.scales.size();
  if (n == 0) return "requantization needs at least one scale";
  if (p.fixed.size() != n || p.scales_f32.size() != n) {
    return "requantization holds " + std::to_string(n) + " scales, " + std::to_string(p.fixed.size()) +
           " fixed-point multipliers and " + std::to_string(p.scales_f32.size()) +
           " float scales (build it with RequantParams::make)";
  }
  for (std::size_t c = 0; c < n; ++c) {
    // Named only when something is wrong: built for every channel of every call, the name's
    // strings made the checks of a wide layer expensive (docs/measurements.md, "Requantization").
    const auto name = [c] { return "requantization scales[" + std::to_string(c) + "]"; };
    if (!(std::isfinite(p.scales[c]) && p.scales[c] >= 0)) return name() + " = " + describe(p.scales[c]) + " must be finite and >= 0";
    if (!(std::isfinite(p.scales_f32[c]) && p.scales_f32[c] >= 0))
      return name() + ": the float scale " + describe(p.scales_f32[c]) + " must be finite and >= 0";
    const FixedPointMultiplier f = p.fixed[c];
    // M is 0 or normalized to [2^30, 2^31): the Arm epilogues' 32-bit forms of upward and
    // tonearest rely on it where a left shift saturates (arm/neon/requant_neon.h).
    const bool normalized = f.multiplier == 0 || f.multiplier >= (std::int32_t{1} << 30);
    if (!normalized || f.shift < -31 || f.shift > 30) {
      return name() + ": fixed-point multiplier {" + std::to_string(f.multiplier) + ", " + std::to_string(f.shift) +
             "} is not a quantize_multiplier() result";
    }
  }
  if (p.qmin > p.qmax) return "requantization qmin " + std::to_string(p.qmin) + " > qmax " + std::to_string(p.qmax);
  for (const auto& [name, value] : {std::pair<const char*, std::int32_t>{"qmin", p.qmin}, {"qmax", p.qmax},
                                    {"output zero point", p.output_zero_point}}) {
    if (value < lowest || value > highest) {
      return std::string("requantization ") + name + " " + std::to_string(value) + " is outside " + range_name +
             " [" + std::to_string(lowest) + ", " + std::to_string(highest) + "]";
    }
  }
  return {};
}

}  // namespace

std::string RequantParams::check() const { return check_requant(*this, -128, 255, "the union of u8 and s8"); }

std::string RequantParams::check(DType out_type) const {
  switch (out_type) {
    case DType::u8: return check_requant(*this, 0, 255, "the range of u8");
    case DType::s8: return check_requant(*this, -128, 127, "the range of s8");
    case DType::s32: break;
  }
  return "requantization output type must be u8 or s8, not " + std::string(to_string(out_type));
}

std::int32_t requantize_reference(std::int32_t acc, FixedPointMultiplier fixed, float scale_f32,
                                  RoundingMode mode, std::int32_t zero_point, std::int32_t qmin,
                                  std::int32_t qmax) {
  if (fixed.multiplier < 0 || fixed.shift < -31 || fixed.shift > 30) {
    throw std::invalid_argument("requantize_reference: fixed-point multiplier {" + std::to_string(fixed.multiplier) +
                                ", " + std::to_string(fixed.shift) + "} is not a quantize_multiplier() result");
  }
  if (qmin > qmax) throw std::invalid_argument("requantize_reference: qmin > qmax");
  // The clamp is applied before the zero point is added, in 64 bits: no int32 overflow anywhere,
  // and the result equals clamp(rounded + zp, qmin, qmax) computed exactly.
  const std::int32_t lo = qmin - zero_point, hi = qmax - zero_point;
  const std::int32_t m = fixed.multiplier, e = fixed.shift;
  const int l = e > 0 ? e : 0, r = e < 0 ? -e : 0, s = 31 - e;
  namespace sc = detail::scalar;
  switch (mode) {
    case RoundingMode::tflite: return sc::clamp_then_offset(sc::tflite(acc, m, l, r), lo, hi, zero_point);
    case RoundingMode::upward: return sc::clamp_then_offset(sc::upward(acc, m, s), lo, hi, zero_point);
    case RoundingMode::tonearest: return sc::clamp_then_offset(sc::tonearest(acc, m, s), lo, hi, zero_point);
    case RoundingMode::arm: return sc::clamp_then_offset(sc::arm(acc, m, l, r), lo, hi, zero_point);
    case RoundingMode::fp32:
      return sc::fp32(acc, scale_f32, static_cast<float>(lo), static_cast<float>(hi)) + zero_point;
  }
  throw std::invalid_argument("requantize_reference: unknown rounding mode " + std::to_string(static_cast<int>(mode)));
}

}  // namespace qtune
