// The vector operations every kernel template is written over: one struct per instruction set
// (vector/scalar_vector.h, x86/avx2/avx2_vector.h, x86/avx512vnni/avx512_vector.h), shared by
// the GEMM microkernels (gemm/gemm_ukernel_template.h), the depthwise kernels
// (dwconv/dwconv_template.h) and the standalone requantization (requantize/requantize_internal.h).
// A vector is kLanes int32 lanes with wrapping arithmetic.
//
// Each struct is defined in an anonymous namespace by its header and included only from
// translation units compiled with its set's flags: internal linkage keeps the linker from merging
// a copy compiled with other -m flags into another family (one-definition rule vs. dispatch).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "qtune/kernels/isa.h"
#include "qtune/kernels/quant.h"
#include "quant/requant_plan.h"

namespace qtune::detail {

template <class V>
concept Int32VectorOps = requires(typename V::Vec v, const std::int32_t* p32, std::int32_t* out32,
                                  const std::uint8_t* bytes, std::uint8_t* out_u8, std::int8_t* out_s8,
                                  std::size_t n, const RequantConstants& plan) {
  { V::kIsa } -> std::convertible_to<Isa>;
  { V::kLanes } -> std::convertible_to<int>;
  { V::kVectorRegisters } -> std::convertible_to<int>;  // 0: no register budget (scalar)
  { V::zero() } -> std::same_as<typename V::Vec>;
  { V::set1(std::int32_t{}) } -> std::same_as<typename V::Vec>;
  { V::add(v, v) } -> std::same_as<typename V::Vec>;
  { V::mullo(v, v) } -> std::same_as<typename V::Vec>;
  // acc + the sum of the products of the int16 halves of each lane (vpmaddwd, then the add).
  { V::madd(v, v, v) } -> std::same_as<typename V::Vec>;
  { V::load(p32) } -> std::same_as<typename V::Vec>;
  { V::load_partial(p32, n) } -> std::same_as<typename V::Vec>;  // lanes >= n are never read
  // kLanes (first n) bytes, each widened to a lane: sign- or zero-extended.
  { V::template load_widen<true>(bytes) } -> std::same_as<typename V::Vec>;
  { V::template load_widen_partial<false>(bytes, n) } -> std::same_as<typename V::Vec>;
  V::store(out32, v);      // a whole vector
  V::store(out32, v, n);   // the first n lanes
  V::store(out_u8, v, n);  // the first n lanes of a requantized vector (already in range)
  V::store(out_s8, v, n);
  { V::template requantize<RoundingMode::tflite>(v, plan, n) } -> std::same_as<typename V::Vec>;
};

// The first n lanes of a requantized vector as the output type says.
template <Int32VectorOps V>
inline void store_q8(std::uint8_t* dst, DType out_type, typename V::Vec q, std::size_t n) {
  if (out_type == DType::u8) {
    V::store(dst, q, n);
  } else {
    V::store(reinterpret_cast<std::int8_t*>(dst), q, n);
  }
}

// Whether V's requantization takes a kFp32Centred plan's accumulators less each channel's origin
// X0 (requantize<Mode, true>, requantize_u8_full<Mode, true>): the fused epilogues of the GEMM and
// depthwise kernels then start their accumulators from terms less X0, where that is exact
// (centred_origin_foldable in quant/requant_plan.h), and convert them without subtracting X0.
template <class V>
inline constexpr bool folds_centred_origin_v = [] {
  if constexpr (requires { V::kFoldsCentredOrigin; }) {
    return V::kFoldsCentredOrigin;
  } else {
    return false;
  }
}();

// What a fused epilogue holds while it requantizes a tile in Mode: V::EpilogueScope<Mode> where V
// has one (AVX2's kFp32Centred sets MXCSR's rounding for the tile: requant_avx2.h, RoundDownScope),
// else nothing.
struct NoEpilogueScope {};
template <class V, RoundingMode Mode>
struct EpilogueScopeOf {
  using type = NoEpilogueScope;
};
template <class V, RoundingMode Mode>
  requires requires { typename V::template EpilogueScope<Mode>; }
struct EpilogueScopeOf<V, Mode> {
  using type = typename V::template EpilogueScope<Mode>;
};
template <class V, RoundingMode Mode>
using epilogue_scope_t = typename EpilogueScopeOf<V, Mode>::type;

// Whether V loads a vector of channels' requantization constants once (requant_lanes) for every
// vector of those channels it then requantizes (requantize(v, lanes, plan)): a GEMM tile's column,
// a depthwise tile's pixels, the rows of the separate pass.
template <class V, RoundingMode Mode>
concept HasRequantLanes = requires(typename V::Vec v, const RequantConstants& plan) {
  { V::template requantize<Mode>(v, V::template requant_lanes<Mode>(plan, std::size_t{0}), plan) }
      -> std::same_as<typename V::Vec>;
};

// Whether V has the short u8 epilogue for Mode (requantize_u8_full over a column's RequantLanes;
// see u8_full_range_epilogue in quant/requant_plan.h).
template <class V, RoundingMode Mode>
concept HasU8FullRangeEpilogue =
    (Mode == RoundingMode::tflite || Mode == RoundingMode::arm || kFloatEpilogue<Mode>) &&
    requires(typename V::Vec v, const RequantConstants& plan) {
      V::template requantize_u8_full<Mode>(v, V::template requant_lanes<Mode>(plan, std::size_t{0}), plan);
    };

}  // namespace qtune::detail
