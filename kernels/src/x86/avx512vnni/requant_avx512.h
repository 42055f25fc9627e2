// AVX-512 requantization of 16 int32 lanes, bit-exact with requantize_reference() for every mode.
// Header-only: include it only from translation units compiled with the AVX-512 flags
// (kernels/src/x86/avx512vnni, avx512bw, amx). The single-rounding modes mirror x86/avx2/requant_avx2.h;
// AVX-512F has the 64-bit arithmetic shift and min/max that AVX2 must emulate, and masks for
// ragged edges. The 64-bit shift also turns tflite's and arm's two roundings into one (one_shift).
#pragma once

// GCC 12's avx512fintrin.h builds many unmasked intrinsics on a self-initialised "undefined"
// vector, which -W(maybe-)uninitialized reports once they are inlined (GCC bug 105593, fixed in
// GCC 13). The warning is about the header's own placeholder, never about our values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstddef>
#include <cstdint>

#include "quant/requant_plan.h"

namespace qtune::detail::avx512 {

inline __m512i load16(const std::int32_t* p) { return _mm512_loadu_si512(p); }

// Lanes 1, 3, ..., 15 moved to the low dword of each 64-bit lane (what mul_epi32 reads).
inline __m512i odd_lanes_down(__m512i v) { return _mm512_shuffle_epi32(v, _MM_PERM_DDBB); }

inline constexpr __mmask16 kOddLanes = 0xAAAA;

// Low dwords of `even` with the low dwords of `odd` placed in the odd lanes.
inline __m512i interleave_low_dwords(__m512i even, __m512i odd) {
  return _mm512_mask_blend_epi32(kOddLanes, even, _mm512_slli_epi64(odd, 32));
}

// One 64-bit half of the single-rounding modes: floor((floor(p' / 2^(s-1)) + 1) / 2), with the
// clamp applied to q + 1 in [2 lo, 2 hi + 1] (see the AVX2 header and docs/requantization.md).
template <bool TiesAwayFromZero>
inline __m512i single_rounding_half(__m512i p, __m512i shift_m1, __m512i lo2, __m512i hi2) {
  if constexpr (TiesAwayFromZero) {
    const __mmask8 negative = _mm512_cmplt_epi64_mask(p, _mm512_setzero_si512());
    p = _mm512_mask_sub_epi64(p, negative, p, _mm512_set1_epi64(1));
  }
  const __m512i q = _mm512_add_epi64(_mm512_srav_epi64(p, shift_m1), _mm512_set1_epi64(1));
  return _mm512_min_epi64(_mm512_max_epi64(q, lo2), hi2);
}

template <bool TiesAwayFromZero>
inline __m512i single_rounding(__m512i acc, __m512i m_even, __m512i m_odd, __m512i shift_even, __m512i shift_odd,
                               std::int32_t lo, std::int32_t hi) {
  const __m512i lo2 = _mm512_set1_epi64(2 * std::int64_t{lo});
  const __m512i hi2 = _mm512_set1_epi64(2 * std::int64_t{hi} + 1);
  const __m512i even = single_rounding_half<TiesAwayFromZero>(_mm512_mul_epi32(acc, m_even), shift_even, lo2, hi2);
  const __m512i odd =
      single_rounding_half<TiesAwayFromZero>(_mm512_mul_epi32(odd_lanes_down(acc), m_odd), shift_odd, lo2, hi2);
  return _mm512_srai_epi32(interleave_low_dwords(even, odd), 1);
}

// The per-channel constants of 16 consecutive channels (or of the per-tensor channel in every
// lane), loaded once per tile column and reused for every row: loaded per row they would be
// reloaded after every 8-bit store (which may alias them) together with their index arithmetic.
template <RoundingMode Mode>
struct RequantLanes {
  // tflite and arm, in one rounding of each 64-bit product (RequantPlan::shift_add): the even
  // lanes' products, then the odd lanes', each (p + add - [p < -2^30] * sub) >> count.
  __m512i left_shift, multiplier_even, multiplier_odd;
  __m512i add_even, add_odd, sub_even, sub_odd, count_even, count_odd;
  // upward, tonearest: multiplier_even / _odd and the 64-bit shifts s - 1 of each half.
  __m512i shift_m1_even, shift_m1_odd;
  __m512 scale;   // the float modes
  __m512 offset;  // kFp32Offset's o, kFp32Centred's b
  __m512 origin;  // kFp32Centred
};

inline __m512i load8_by_parity(const std::int64_t* const (&by_parity)[2], std::size_t c) {
  return _mm512_loadu_si512(by_parity[c & 1] + c / 2);
}

template <RoundingMode Mode>
__attribute__((always_inline)) inline RequantLanes<Mode> load_requant_lanes(const RequantConstants& plan,
                                                                           std::size_t channel) {
  // Per-tensor plans hold copies of their one channel: index 0 for every lane.
  const std::size_t even = plan.per_channel ? channel : 0, odd = plan.per_channel ? channel + 1 : 0;
  RequantLanes<Mode> q{};  // members a mode does not use stay zero (and are optimized away)
  if constexpr (kFloatEpilogue<Mode>) {
    q.scale = _mm512_loadu_ps(&plan.scale[even]);
    if constexpr (Mode != RoundingMode::fp32) q.offset = _mm512_loadu_ps(&plan.fp32_offset[even]);
    if constexpr (Mode == kFp32Centred) q.origin = _mm512_loadu_ps(&plan.fp32_origin[even]);
  } else {
    // Lane 2j + 1 of M at `channel` is the low dword of lane j of an M load one channel later.
    q.multiplier_even = load16(&plan.multiplier[even]);
    q.multiplier_odd = load16(&plan.multiplier[odd]);
  }
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    q.left_shift = load16(&plan.left_shift[even]);
    q.add_even = load8_by_parity(plan.shift_add, even);
    q.add_odd = load8_by_parity(plan.shift_add, odd);
    q.count_even = load8_by_parity(plan.shift_count, even);
    q.count_odd = load8_by_parity(plan.shift_count, odd);
    if constexpr (Mode == RoundingMode::tflite) {
      q.sub_even = load8_by_parity(plan.shift_sub, even);
      q.sub_odd = load8_by_parity(plan.shift_sub, odd);
    }
  }
  if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    const __m512i shift_m1 = load16(&plan.product_shift_m1[even]);
    q.shift_m1_even = _mm512_and_si512(shift_m1, _mm512_set1_epi64(0xFFFFFFFF));
    q.shift_m1_odd = _mm512_srli_epi64(shift_m1, 32);
  }
  return q;
}

template <bool TiesAwayFromZero>
__attribute__((always_inline)) inline __m512i one_shift_half(__m512i p, __m512i add, __m512i sub, __m512i count) {
  __m512i q = _mm512_add_epi64(p, add);
  if constexpr (TiesAwayFromZero) {
    const __mmask8 below = _mm512_cmplt_epi64_mask(p, _mm512_set1_epi64(-(std::int64_t{1} << 30)));
    q = _mm512_mask_sub_epi64(q, below, q, sub);
  }
  return _mm512_srav_epi64(q, count);
}

// tflite (ties away from zero) or arm on x = acc << l: five instructions per half against the
// nine of the literal SRDHM + RDPOT, the halves re-interleaved by one masked shuffle. Inlined
// always: as a call (GCC's choice where the epilogue has two forms) the tile's epilogue ran slower
// (docs/measurements.md, "GEMM microkernels").
template <RoundingMode Mode>
__attribute__((always_inline)) inline __m512i one_shift(__m512i x, const RequantLanes<Mode>& q) {
  constexpr bool kTiesAway = Mode == RoundingMode::tflite;
  const __m512i even = one_shift_half<kTiesAway>(_mm512_mul_epi32(x, q.multiplier_even), q.add_even, q.sub_even,
                                                 q.count_even);
  const __m512i odd = one_shift_half<kTiesAway>(_mm512_mul_epi32(odd_lanes_down(x), q.multiplier_odd), q.add_odd,
                                                q.sub_odd, q.count_odd);
  return _mm512_mask_shuffle_epi32(even, kOddLanes, odd, _MM_PERM_CCAA);
}

// float(acc) * scale, and for kFp32Offset fused with the offset carrying acc's sign (ternlog 0xEA
// is (A & B) | C: the sign bit of acc's float, or'ed into the non-negative offset); for
// kFp32Centred (float(acc) - X0) * scale + b rounded down (embedded rounding, MXCSR untouched), to
// be converted by to_int rounding down too: scalar::fp32_centred's floor.
// OriginFolded: the caller's accumulators hold acc - X0 already, computed exactly in int32 (the
// fused GEMM and depthwise epilogues start them from column or bias terms less X0, where
// centred_origin_foldable in quant/requant_plan.h holds), so the centred form converts them
// as they are, one instruction less per 16 outputs.
template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m512 scaled(__m512i acc, const RequantLanes<Mode>& q) {
  const __m512 x = _mm512_cvtepi32_ps(acc);
  if constexpr (Mode == kFp32Offset) {
    const __m512i sign = _mm512_set1_epi32(static_cast<std::int32_t>(0x80000000u));
    const __m512i offset = _mm512_ternarylogic_epi32(_mm512_castps_si512(x), sign, _mm512_castps_si512(q.offset), 0xEA);
    return _mm512_fmadd_ps(x, q.scale, _mm512_castsi512_ps(offset));
  } else if constexpr (Mode == kFp32Centred) {
    return _mm512_fmadd_round_ps(OriginFolded ? x : _mm512_sub_ps(x, q.origin), q.scale, q.offset,
                                 _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  } else {
    return _mm512_mul_ps(x, q.scale);
  }
}

// The float epilogue's conversion: half to even under the default MXCSR, kFp32Centred's down.
template <RoundingMode Mode>
__attribute__((always_inline)) inline __m512i to_int(__m512 f) {
  if constexpr (Mode == kFp32Centred) {
    return _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  } else {
    return _mm512_cvtps_epi32(f);
  }
}

inline __m512i clamp_epi32(__m512i v, std::int32_t lo, std::int32_t hi) {
  return _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(lo)), _mm512_set1_epi32(hi));
}

// 16 lanes of channels [channel, channel + 16) (per-tensor plans ignore channel): values already
// clamped and offset by the zero point, i.e. in [qmin, qmax].
// Always inlined: as a call it would reload its constants for every vector (observed for the
// depthwise epilogue), inlined they are loaded once per channel vector and stay in registers.
template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m512i requantize16(__m512i acc, const RequantLanes<Mode>& q,
                                                           const RequantConstants& plan) {
  __m512i v;
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    v = clamp_epi32(one_shift<Mode>(_mm512_sllv_epi32(acc, q.left_shift), q), plan.lo, plan.hi);
  } else if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    v = single_rounding<Mode == RoundingMode::tonearest>(acc, q.multiplier_even, q.multiplier_odd, q.shift_m1_even,
                                                         q.shift_m1_odd, plan.lo, plan.hi);
  } else {
    static_assert(kFloatEpilogue<Mode>);
    // maxps/minps return the second operand for a NaN first operand (as scalar::fp32).
    __m512 f = scaled<Mode, OriginFolded>(acc, q);
    f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(static_cast<float>(plan.lo))),
                      _mm512_set1_ps(static_cast<float>(plan.hi)));
    v = to_int<Mode>(f);
  }
  return _mm512_add_epi32(v, _mm512_set1_epi32(plan.zero_point));
}

// requantize16 for u8 outputs where u8_full_range_epilogue(plan, Mode) holds, to be stored with
// unsigned saturation (store_u8): no left shift, and no upper clamp, which the store does. Only
// the lower bound is applied before the zero point, so v + zp >= qmin >= 0 and a sum past
// INT32_MAX wraps to a value the store still reads as above 255 (v < 2^31, zp <= 255); likewise
// cvtps2dq's 0x80000000 for products of 2^31 or more. Bit-exact with requantize16 after the store.
template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m512i requantize16_u8_full(__m512i acc, const RequantLanes<Mode>& q,
                                                                   const RequantConstants& plan) {
  static_assert(Mode == RoundingMode::tflite || Mode == RoundingMode::arm || kFloatEpilogue<Mode>);
  __m512i v;
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm) {
    v = _mm512_max_epi32(one_shift<Mode>(acc, q), _mm512_set1_epi32(plan.lo));
  } else {
    // maxps returns the second operand for a NaN first operand (as scalar::fp32).
    const __m512 f = _mm512_max_ps(scaled<Mode, OriginFolded>(acc, q), _mm512_set1_ps(static_cast<float>(plan.lo)));
    v = to_int<Mode>(f);
  }
  return _mm512_add_epi32(v, _mm512_set1_epi32(plan.zero_point));
}

template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m512i requantize16(__m512i acc, const RequantConstants& plan,
                                                           std::size_t channel) {
  return requantize16<Mode, OriginFolded>(acc, load_requant_lanes<Mode>(plan, channel), plan);
}

// ---- masked loads and stores (ragged edges) ---------------------------------------------------

// Lanes [0, n) for n <= 16.
inline __mmask16 lane_mask(std::size_t n) {
  return static_cast<__mmask16>((std::uint32_t{1} << n) - 1);
}

// Loads src[0..n) and zeros elsewhere; masked-off lanes never touch memory.
inline __m512i load_partial(const std::int32_t* src, std::size_t n) {
  return _mm512_maskz_loadu_epi32(lane_mask(n), src);
}

// Stores lanes [0, n) of v (values in [0, 255]) as uint8.
inline void store_u8(std::uint8_t* dst, __m512i v, std::size_t n) {
  _mm512_mask_cvtusepi32_storeu_epi8(dst, lane_mask(n), v);
}

// Stores lanes [0, n) of v (values in [-128, 127]) as int8.
inline void store_s8(std::int8_t* dst, __m512i v, std::size_t n) {
  _mm512_mask_cvtsepi32_storeu_epi8(dst, lane_mask(n), v);
}

inline void store(std::uint8_t* dst, __m512i v, std::size_t n) { store_u8(dst, v, n); }
inline void store(std::int8_t* dst, __m512i v, std::size_t n) { store_s8(dst, v, n); }

}  // namespace qtune::detail::avx512
