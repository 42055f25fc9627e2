// An activation's float bound (Relu's 0, Clip's min and max) in the integers of the QuantizeLinear
// after it, before saturation.
#pragma once

#include <cmath>
#include <cstdint>

namespace qtune::onnx_import::detail {

// round(v / scale) + zero_point, the division in float and the rounding half to even, as
// onnxruntime's QuantizeLinear computes it. A double, not an integer: a model's bound may lie far
// outside every integer type (Clip(-3.4e38, 3.4e38), or a division that overflows to infinity),
// and only its order against the type's range is used.
inline double unsaturated_quantized(float v, float scale, std::int32_t zero_point) {
  return static_cast<double>(std::nearbyint(v / scale)) + zero_point;
}

}  // namespace qtune::onnx_import::detail
