// Quantization parameters and the requantization schemes qtune implements.
//
// Requantization maps an int32 accumulator back to 8 bits: out = clamp(round(acc * S) + zp).
// The real scale S is carried as a fixed-point multiplier M in [2^30, 2^31) and an exponent e,
// S = M * 2^(e-31). Which rounding is applied is a property of the model being deployed (it
// changes results), never a speed knob: docs/requantization.md has the exact definitions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace qtune {

enum class RoundingMode : unsigned char {
  tflite,     // TFLite / gemmlowp: SaturatingRoundingDoublingHighMul then RoundingDivideByPOT
  upward,     // single rounding, ties toward +inf (TFLITE_SINGLE_ROUNDING, ruy, TVM UPWARD)
  tonearest,  // TVM TONEAREST: single rounding, ties away from zero
  arm,        // sqrdmulh + srshl without the fixup: two roundings, both ties up
  fp32,       // (float)acc * scale, round to nearest even (XNNPACK fp32, oneDNN)
};

inline constexpr std::array<RoundingMode, 5> kAllRoundingModes = {
    RoundingMode::tflite, RoundingMode::upward, RoundingMode::tonearest, RoundingMode::arm,
    RoundingMode::fp32};

std::string_view to_string(RoundingMode mode);
std::optional<RoundingMode> parse_rounding_mode(std::string_view name);
// False for a value outside the enum (a cast or a corrupted struct): no dispatch may see one.
bool is_rounding_mode(RoundingMode mode);

// Element types of quantized tensors.
enum class DType : unsigned char { u8, s8, s32 };
std::string_view to_string(DType type);
std::optional<DType> parse_dtype(std::string_view name);

// Thrown for scales that have no fixed-point form (negative, NaN, infinite).
struct InvalidScale : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// S = multiplier * 2^(shift - 31); multiplier in [2^30, 2^31) or 0.
struct FixedPointMultiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
  friend bool operator==(const FixedPointMultiplier&, const FixedPointMultiplier&) = default;
};

// Exactly TFLite's QuantizeMultiplier (frexp, round, M == 2^31 carry, S == 0 -> {0,0},
// e < -31 -> {0,0}); scales >= 2^30 are clamped to {2^31-1, 30} as single-rounding builds do,
// so that every mode can execute the shift. Throws InvalidScale for negative, NaN or inf.
FixedPointMultiplier quantize_multiplier(double scale);

// Requantization of one output tensor, per-tensor (one scale) or per output channel.
struct RequantParams {
  RoundingMode mode = RoundingMode::tflite;
  std::int32_t output_zero_point = 0;
  std::int32_t qmin = -128;  // clamp bounds in the output type, a fused ReLU/ReLU6 narrows them
  std::int32_t qmax = 127;
  std::vector<double> scales;                // size 1 (per-tensor) or one per channel
  std::vector<FixedPointMultiplier> fixed;   // quantize_multiplier(scales[i])
  std::vector<float> scales_f32;             // (float)scales[i], used by RoundingMode::fp32

  bool per_channel() const { return scales.size() > 1; }
  std::size_t channels() const { return scales.size(); }

  // Validates (at least one scale, each finite and >= 0; qmin <= qmax; qmin, qmax and the zero
  // point within [-128, 255], the union of u8 and s8 — callers that know the output type check its
  // exact range; the zero point need not lie in [qmin, qmax]) and derives the fixed-point form;
  // throws std::invalid_argument (InvalidScale for a scale) naming the problem.
  static RequantParams make(RoundingMode mode, std::vector<double> scales, std::int32_t zero_point,
                            std::int32_t qmin, std::int32_t qmax);

  // The one check of parameters that may have been built or changed by hand, used by every entry
  // point (GEMM, conv2d, depthwise, requantize(), the runtime and the C API) before any kernel runs.
  // Empty when they are usable, else a message naming the problem: the mode is a RoundingMode; at
  // least one scale; fixed and scales_f32 hold one entry per scale; every scale (double and float)
  // finite and >= 0; every fixed-point multiplier a quantize_multiplier() result; qmin <= qmax; and
  // qmin, qmax and the zero point within [-128, 255] (check()) or within out_type (check(out_type),
  // which must be u8 or s8). The channel count against the operator's is the caller's to check.
  std::string check() const;
  std::string check(DType out_type) const;
};

// The scalar reference of every scheme: the definition all vectorized code is tested against.
std::int32_t requantize_reference(std::int32_t acc, FixedPointMultiplier fixed, float scale_f32,
                                  RoundingMode mode, std::int32_t zero_point, std::int32_t qmin,
                                  std::int32_t qmax);

// Convenience: channel c of p (c ignored for per-tensor).
inline std::int32_t requantize_reference(std::int32_t acc, const RequantParams& p, std::size_t c) {
  const std::size_t i = p.per_channel() ? c : 0;
  return requantize_reference(acc, p.fixed[i], p.scales_f32[i], p.mode, p.output_zero_point, p.qmin,
                              p.qmax);
}

}  // namespace qtune
