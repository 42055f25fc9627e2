// The NEON vector operations (vector/vector_ops.h): 4 int32 lanes per q register, Armv8.0
// Advanced SIMD only, so every aarch64 family (neon, dotprod, i8mm) can build on it. Ragged edges
// go through small copies that never touch bytes past the n valid lanes; requantization is
// requant_neon.h (sqrdmulh + srshl for tflite / arm). Include only from translation units under
// kernels/src/arm/.
#pragma once

#include <arm_neon.h>

#include <cstring>

#include "arm/neon/requant_neon.h"
#include "vector/vector_ops.h"

namespace qtune::detail {
namespace {

struct NeonVector {
  static constexpr Isa kIsa = Isa::neon;
  static constexpr int kLanes = 4;
  static constexpr int kVectorRegisters = 32;
  using Vec = int32x4_t;

  static Vec zero() { return vdupq_n_s32(0); }
  static Vec set1(std::int32_t x) { return vdupq_n_s32(x); }
  static Vec add(Vec a, Vec b) { return vaddq_s32(a, b); }
  static Vec mullo(Vec a, Vec b) { return vmulq_s32(a, b); }
  // vpmaddwd's meaning on the int16 view: smull / smull2 multiply the 8 halves exactly into int32,
  // addp adds each lane's low and high product. (mla on the lanes would be one instruction but is
  // only equal when the high halves are 0 or the weight's low half is non-negative.)
  static Vec madd(Vec acc, Vec x, Vec w) {
    const int16x8_t x16 = vreinterpretq_s16_s32(x), w16 = vreinterpretq_s16_s32(w);
    const int32x4_t lo = vmull_s16(vget_low_s16(x16), vget_low_s16(w16));
    const int32x4_t hi = vmull_high_s16(x16, w16);
    return vaddq_s32(acc, vpaddq_s32(lo, hi));
  }
  static Vec load(const std::int32_t* p) { return vld1q_s32(p); }
  static Vec load_partial(const std::int32_t* p, std::size_t n) {
    std::int32_t lanes[kLanes] = {0, 0, 0, 0};
    std::memcpy(lanes, p, n * sizeof(std::int32_t));
    return vld1q_s32(lanes);
  }
  // kLanes bytes in the low lane and zeros above (ldr s), never reading past the n given.
  static uint8x8_t load4(const std::uint8_t* p) {
    std::uint32_t bytes;
    std::memcpy(&bytes, p, sizeof(bytes));
    return vcreate_u8(bytes);
  }
  static uint8x8_t load4_partial(const std::uint8_t* p, std::size_t n) {
    std::uint32_t bytes = 0;
    std::memcpy(&bytes, p, n);
    return vcreate_u8(bytes);
  }
  // The low kLanes bytes sign- or zero-extended to 16 bits (both fit int16, so a further sign
  // extension to 32 bits keeps them).
  template <bool Signed>
  static int16x4_t widen16(uint8x8_t bytes) {
    if constexpr (Signed) {
      return vget_low_s16(vmovl_s8(vreinterpret_s8_u8(bytes)));
    } else {
      return vreinterpret_s16_u16(vget_low_u16(vmovl_u8(bytes)));
    }
  }
  template <bool Signed>
  static Vec load_widen(const std::uint8_t* p) {
    return vmovl_s16(widen16<Signed>(load4(p)));
  }
  template <bool Signed>
  static Vec load_widen_partial(const std::uint8_t* p, std::size_t n) {
    return vmovl_s16(widen16<Signed>(load4_partial(p, n)));
  }
  static void store(std::int32_t* p, Vec v) { vst1q_s32(p, v); }
  static void store(std::int32_t* p, Vec v, std::size_t n) {
    if (n == kLanes) {
      store(p, v);
    } else {
      std::int32_t lanes[kLanes];
      vst1q_s32(lanes, v);
      std::memcpy(p, lanes, n * sizeof(std::int32_t));
    }
  }
  // The lanes are already in the output type's range: the truncating narrow keeps both u8 and s8.
  static void store_bytes(void* p, Vec v, std::size_t n) {
    const std::uint32_t four = vget_lane_u32(vreinterpret_u32_u8(neon::narrow8(v, v)), 0);
    std::memcpy(p, &four, n);
  }
  static void store(std::uint8_t* p, Vec v, std::size_t n) { store_bytes(p, v, n); }
  static void store(std::int8_t* p, Vec v, std::size_t n) { store_bytes(p, v, n); }
  template <RoundingMode Mode>
  static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return neon::requantize4<Mode>(v, neon::load_requant_lanes<Mode>(plan, channel));
  }
};
static_assert(Int32VectorOps<NeonVector>);

}  // namespace
}  // namespace qtune::detail
