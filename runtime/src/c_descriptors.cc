// C descriptors -> GemmProblem / Conv2dProblem, with every field checked before use.
#include "c_descriptors.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include "qtune/search_space/conv2d_geometry.h"

namespace qtune::runtime::detail {
namespace {

// A C caller may store any int in an enum field, but in C++ loading a value outside the
// enumeration's range is undefined: read the field's bytes as its underlying integer instead.
template <typename Enum>
long long raw_value(const Enum& field) {
  std::underlying_type_t<Enum> value;
  std::memcpy(&value, &field, sizeof value);
  return static_cast<long long>(value);
}

DType to_dtype(const qtune_dtype& field, const char* name) {
  switch (raw_value(field)) {
    case QTUNE_DTYPE_U8: return DType::u8;
    case QTUNE_DTYPE_S8: return DType::s8;
    case QTUNE_DTYPE_S32: return DType::s32;
    case QTUNE_DTYPE_F32:
      throw std::invalid_argument(std::string(name) + ": QTUNE_DTYPE_F32 is a model input/output type, not a layer's");
  }
  throw std::invalid_argument(std::string(name) + ": unknown qtune_dtype " + std::to_string(raw_value(field)));
}

RoundingMode to_rounding(const qtune_rounding& field) {
  switch (raw_value(field)) {
    case QTUNE_ROUNDING_TFLITE: return RoundingMode::tflite;
    case QTUNE_ROUNDING_UPWARD: return RoundingMode::upward;
    case QTUNE_ROUNDING_TONEAREST: return RoundingMode::tonearest;
    case QTUNE_ROUNDING_ARM: return RoundingMode::arm;
    case QTUNE_ROUNDING_FP32: return RoundingMode::fp32;
  }
  throw std::invalid_argument("quant.rounding: unknown qtune_rounding " + std::to_string(raw_value(field)));
}

// Fills the quantization fields shared by both problems; `channels` is N / out_c.
template <typename Problem>
void apply_quant(const qtune_quant_desc& q, std::int64_t channels, Problem& p) {
  p.a_type = to_dtype(q.a_type, "quant.a_type");
  if (p.a_type == DType::s32) throw std::invalid_argument("quant.a_type: activations must be U8 or S8");
  p.a_zero_point = q.a_zero_point;
  if (q.b_zero_point_count == 0) {
    p.b_zero_points = {0};
  } else {
    if (q.b_zero_points == nullptr)
      throw std::invalid_argument("quant.b_zero_points is NULL but b_zero_point_count is " +
                                  std::to_string(q.b_zero_point_count));
    if (q.b_zero_point_count != 1 && static_cast<std::int64_t>(q.b_zero_point_count) != channels)
      throw std::invalid_argument("quant.b_zero_point_count must be 0, 1 or the output channel count " +
                                  std::to_string(channels) + ", got " + std::to_string(q.b_zero_point_count));
    p.b_zero_points.assign(q.b_zero_points, q.b_zero_points + q.b_zero_point_count);
  }
  p.out_type = to_dtype(q.out_type, "quant.out_type");
  if (p.out_type == DType::s32) return;
  if (q.scales == nullptr || q.scale_count == 0)
    throw std::invalid_argument("quant.scales: a requantized output needs 1 or one-per-channel scales");
  if (q.scale_count != 1 && static_cast<std::int64_t>(q.scale_count) != channels)
    throw std::invalid_argument("quant.scale_count must be 1 or the output channel count " + std::to_string(channels) +
                                ", got " + std::to_string(q.scale_count));
  p.requant = RequantParams::make(to_rounding(q.rounding), std::vector<double>(q.scales, q.scales + q.scale_count),
                                  q.out_zero_point, q.qmin, q.qmax);
}

}  // namespace

GemmProblem to_gemm_problem(const qtune_gemm_desc& desc, bool has_bias) {
  GemmProblem p;
  p.m = desc.m;
  p.n = desc.n;
  p.k = desc.k;
  p.has_bias = has_bias;
  apply_quant(desc.quant, desc.n, p);
  p.validate();
  return p;
}

Conv2dProblem to_conv2d_problem(const qtune_conv2d_desc& desc, bool has_bias) {
  Conv2dProblem p;
  copy_conv2d_geometry(desc, p);
  p.has_bias = has_bias;
  apply_quant(desc.quant, desc.out_c, p);
  p.validate();
  return p;
}

}  // namespace qtune::runtime::detail
