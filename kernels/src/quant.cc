// Quantization parameters: names, the fixed-point form of a scale, validation, and the scalar
// reference of every requantization scheme (definitions in docs/requantization.md).
#include "qtune/kernels/quant.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "requant_plan.h"

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
  if (parse_rounding_mode(to_string(mode)) != mode) {
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
