// The portable depthwise kernels: the template with one-lane "vectors" (the compiler may still
// vectorize the channel tile), requantized through the scalar plan evaluation.
#include <array>

#include "dwconv/dwconv_template.h"
#include "requantize/requant_plan.h"

namespace qtune::detail {
namespace {

struct ScalarTraits {
  static constexpr Isa isa = Isa::scalar;
  static constexpr int kLanes = 1;
  static constexpr int kVectorRegisters = 0;  // scalar: a vector is one lane, keep the tap loop
  using Vec = std::uint32_t;  // unsigned: the accumulator wraps like the vector adds

  static Vec zero() { return 0; }
  static Vec load_i32(const std::int32_t* p) { return static_cast<Vec>(*p); }
  static Vec load_i32_partial(const std::int32_t* p, std::size_t) { return static_cast<Vec>(*p); }
  template <bool Signed>
  static Vec load_x(const std::uint8_t* p) {
    if constexpr (Signed) {
      return static_cast<Vec>(static_cast<std::int32_t>(static_cast<std::int8_t>(*p)));
    } else {
      return static_cast<Vec>(*p);
    }
  }
  template <bool Signed>
  static Vec load_x_partial(const std::uint8_t* p, std::size_t) { return load_x<Signed>(p); }
  static Vec madd_add(Vec acc, Vec x, Vec w) {
    const auto w16 = static_cast<std::int32_t>(static_cast<std::int16_t>(w & 0xFFFFu));
    return acc + x * static_cast<Vec>(w16);
  }
  static Vec add(Vec a, Vec b) { return a + b; }
  static void store_i32(std::int32_t* dst, Vec v, std::size_t) { *dst = static_cast<std::int32_t>(v); }
  template <RoundingMode Mode>
  __attribute__((always_inline)) static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return static_cast<Vec>(requantize_scalar<Mode>(static_cast<std::int32_t>(v), plan, channel));
  }
  static void store_q8(std::uint8_t* dst, DType out_type, Vec q, std::size_t) {
    if (out_type == DType::u8) {
      *dst = static_cast<std::uint8_t>(q);
    } else {
      *reinterpret_cast<std::int8_t*>(dst) = static_cast<std::int8_t>(q);
    }
  }
};

constexpr std::array kScalarKernels = {
    QTUNE_DW_KERNEL(ScalarTraits, 8, 1),  QTUNE_DW_KERNEL(ScalarTraits, 16, 1),
    QTUNE_DW_KERNEL(ScalarTraits, 8, 2),  QTUNE_DW_KERNEL(ScalarTraits, 16, 2),
    QTUNE_DW_KERNEL(ScalarTraits, 8, 4),  QTUNE_DW_KERNEL(ScalarTraits, 16, 4),
};

}  // namespace

std::span<const DwKernel> dw_kernels_scalar() { return kScalarKernels; }

}  // namespace qtune::detail
