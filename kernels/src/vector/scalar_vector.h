// The scalar "vector": one lane, held unsigned so that it wraps like the vector adds. The portable
// families (gemm/gemm_scalar.cc, dwconv/dwconv_scalar.cc) are the same templates over it; the
// compiler may still vectorize their loops over a tile. Operations: vector/vector_ops.h.
#pragma once

#include "vector/vector_ops.h"

namespace qtune::detail {
namespace {

struct ScalarVector {
  static constexpr Isa kIsa = Isa::scalar;
  static constexpr int kLanes = 1;
  static constexpr int kVectorRegisters = 0;
  using Vec = std::uint32_t;

  static Vec zero() { return 0; }
  static Vec set1(std::int32_t x) { return static_cast<Vec>(x); }
  static Vec add(Vec a, Vec b) { return a + b; }
  static Vec mullo(Vec a, Vec b) { return a * b; }
  static Vec madd(Vec acc, Vec x, Vec w) {
    auto lo = [](Vec v) { return static_cast<Vec>(static_cast<std::int32_t>(static_cast<std::int16_t>(v & 0xFFFFu))); };
    auto hi = [](Vec v) { return static_cast<Vec>(static_cast<std::int32_t>(static_cast<std::int16_t>(v >> 16))); };
    return acc + lo(x) * lo(w) + hi(x) * hi(w);
  }
  static Vec load(const std::int32_t* p) { return static_cast<Vec>(*p); }
  static Vec load_partial(const std::int32_t* p, std::size_t) { return static_cast<Vec>(*p); }
  template <bool Signed>
  static Vec load_widen(const std::uint8_t* p) {
    if constexpr (Signed) {
      return static_cast<Vec>(static_cast<std::int32_t>(static_cast<std::int8_t>(*p)));
    } else {
      return static_cast<Vec>(*p);
    }
  }
  template <bool Signed>
  static Vec load_widen_partial(const std::uint8_t* p, std::size_t) { return load_widen<Signed>(p); }
  static void store(std::int32_t* p, Vec v) { *p = static_cast<std::int32_t>(v); }
  static void store(std::int32_t* p, Vec v, std::size_t) { store(p, v); }
  static void store(std::uint8_t* p, Vec v, std::size_t) { *p = static_cast<std::uint8_t>(v); }
  static void store(std::int8_t* p, Vec v, std::size_t) { *p = static_cast<std::int8_t>(static_cast<std::int32_t>(v)); }
  template <RoundingMode Mode>
  __attribute__((always_inline)) static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return static_cast<Vec>(requantize_scalar<Mode>(static_cast<std::int32_t>(v), plan, channel));
  }
};
static_assert(Int32VectorOps<ScalarVector>);

}  // namespace
}  // namespace qtune::detail
