// AVX2 requantization of 8 int32 lanes, bit-exact with requantize_reference() for every mode.
// Header-only: include it only from translation units compiled with -mavx2 (kernels/src/x86/avx2).
//
// The 64-bit steps work on two halves: mul_epi32 multiplies the even lanes (0, 2, 4, 6) into
// 64-bit products; the odd lanes are first moved down with a shuffle. AVX2 has no 64-bit
// arithmetic shift and no 64-bit min/max, so they are emulated exactly: arithmetic shift as
// ~(~x >>> k) on negative x (the xor-with-sign trick), min/max as cmpgt_epi64 + blendv.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quant/requant_plan.h"

namespace qtune::detail::avx2 {

inline __m256i load8(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Lanes 1, 3, 5, 7 moved to 0, 2, 4, 6 (the low dword of each 64-bit lane, what mul_epi32 reads).
inline __m256i odd_lanes_down(__m256i v) { return _mm256_shuffle_epi32(v, _MM_SHUFFLE(3, 3, 1, 1)); }

// Low dwords of `even` (lanes 0, 2, 4, 6) with the low dwords of `odd` placed in lanes 1, 3, 5, 7.
inline __m256i interleave_low_dwords(__m256i even, __m256i odd) {
  return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// gemmlowp SaturatingRoundingDoublingHighMul per lane: floor((x*m + 2^30) / 2^31). m is never
// INT32_MIN (plans hold M in [0, 2^31)), so the saturating case cannot occur and the result
// always fits in int32: its bits are bits 31..62 of the 64-bit sum. m_odd: odd_lanes_down(m).
inline __m256i srdhm(__m256i x, __m256i m, __m256i m_odd) {
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), nudge);
  const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(odd_lanes_down(x), m_odd), nudge);
  return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
}

// gemmlowp RoundingDivideByPOT with per-lane r, mask = 2^r - 1, half = mask >> 1.
inline __m256i rdpot(__m256i t, __m256i r, __m256i mask, __m256i half) {
  const __m256i remainder = _mm256_and_si256(t, mask);
  const __m256i threshold = _mm256_sub_epi32(half, _mm256_srai_epi32(t, 31));  // +1 when t < 0
  const __m256i round_up = _mm256_cmpgt_epi32(remainder, threshold);          // -1 or 0
  return _mm256_sub_epi32(_mm256_srav_epi32(t, r), round_up);
}

// Four 64-bit constants of channels c, c + 2, c + 4, c + 6 (RequantConstants::shift_add etc.,
// stored by channel parity).
inline __m256i load4_by_parity(const std::int64_t* const (&by_parity)[2], std::size_t c) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(by_parity[c & 1] + c / 2));
}

// The 64-bit left shift of arm_one_shift_half from RequantConstants::shift_count (31 + r): 1 where
// r = 0, else 0. The counts fit in the low dwords, so a 32-bit min leaves the high ones at 0.
inline __m256i arm_widen_count(__m256i shift_count) {
  return _mm256_sub_epi64(_mm256_set1_epi64x(32), _mm256_min_epu32(shift_count, _mm256_set1_epi32(32)));
}

// arm's two roundings, srdhm then srshl by -r, are one: floor((p + 2^30 + [r > 0] 2^(30 + r)) /
// 2^(31 + r)) for the product p = x * M (for integers, floor((floor(a / b) + c) / d) =
// floor((a + b c) / (b d))), the one-shift form of RequantConstants::shift_add. With
// w that sum (|w| < 2^63), the result is floor(H / 2^(r - 1)) for H the high dword of w where
// r > 0 (shift_count >= 32), and H itself, the high dword of 2w, where r = 0 (widen = 1). So each
// half needs one 64-bit add and shift and the halves' high dwords one blend and a 32-bit shift:
// two instructions fewer a vector than srdhm's two roundings and srshl's rounding bit (11 against 13).
inline __m256i arm_one_shift_half(__m256i p, __m256i add, __m256i widen) {
  return _mm256_sllv_epi64(_mm256_add_epi64(p, add), widen);
}

inline __m256i clamp_epi64(__m256i v, __m256i lo, __m256i hi) {
  v = _mm256_blendv_epi8(v, lo, _mm256_cmpgt_epi64(lo, v));
  return _mm256_blendv_epi8(v, hi, _mm256_cmpgt_epi64(v, hi));
}

// One 64-bit half of the single-rounding modes. With q = floor(p' / 2^(s-1)), where p' = p for
// upward and p - [p < 0] for tonearest, the result is floor((q + 1) / 2) (docs/requantization.md).
// Clamping q + 1 to [2 lo, 2 hi + 1] before that final halving equals clamping the result to
// [lo, hi], and it makes the value fit in 32 bits.
template <bool TiesAwayFromZero>
inline __m256i single_rounding_half(__m256i p, __m256i shift_m1, __m256i lo2, __m256i hi2) {
  const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);  // -1 where p < 0
  if constexpr (TiesAwayFromZero) p = _mm256_add_epi64(p, sign);     // p' < 0 exactly when p < 0
  const __m256i q = _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(p, sign), shift_m1), sign);
  return clamp_epi64(_mm256_add_epi64(q, _mm256_set1_epi64x(1)), lo2, hi2);
}

// upward / tonearest: returns the value clamped to [lo, hi] (zero point not yet added). m_odd:
// odd_lanes_down(m); shift_even / shift_odd: the 64-bit shift counts s - 1 of the even and the odd
// lanes (each 64-bit lane's low dword, or its high dword moved down).
template <bool TiesAwayFromZero>
inline __m256i single_rounding(__m256i acc, __m256i m, __m256i m_odd, __m256i shift_even, __m256i shift_odd,
                               std::int32_t lo, std::int32_t hi) {
  const __m256i lo2 = _mm256_set1_epi64x(2 * std::int64_t{lo});
  const __m256i hi2 = _mm256_set1_epi64x(2 * std::int64_t{hi} + 1);
  const __m256i even = single_rounding_half<TiesAwayFromZero>(_mm256_mul_epi32(acc, m), shift_even, lo2, hi2);
  const __m256i odd =
      single_rounding_half<TiesAwayFromZero>(_mm256_mul_epi32(odd_lanes_down(acc), m_odd), shift_odd, lo2, hi2);
  return _mm256_srai_epi32(interleave_low_dwords(even, odd), 1);
}

inline __m256i clamp_epi32(__m256i v, std::int32_t lo, std::int32_t hi) {
  return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
}

// A vector's constants of one mode (members a mode does not use stay zero and are optimized away),
// loaded once per GEMM tile column and applied to every row of it: loaded per vector they were
// reloaded and re-derived after every 8-bit store (which may alias them).
template <RoundingMode Mode>
struct RequantLanes {
  __m256i left_shift, multiplier, multiplier_odd;  // tflite, arm; upward and tonearest: M too
  __m256i right_shift, rdpot_mask, rdpot_half;     // tflite: r, 2^r - 1 and its half; arm: max(r - 1, 0)
  __m256i add_even, add_odd, widen_even, widen_odd;  // arm: arm_one_shift_half's, by lane parity
  __m256i shift_m1_even, shift_m1_odd;             // upward, tonearest
  __m256 scale, offset;                            // the float modes (kFp32Centred: its addend b)
  std::size_t index = 0;                           // kFp32Centred: the first lane's index into the plan
};

// MXCSR's rounding set to down (toward -inf) while it lives, then restored: kFp32Centred's fma and
// conversion round down, which AVX2 has only through MXCSR. An epilogue holds one for a whole
// tile, never around anything but the centred form's own float steps.
class RoundDownScope {
 public:
  RoundDownScope() : saved_(_mm_getcsr()) { _mm_setcsr((saved_ & ~kRoundingBits) | kRoundDown); }
  ~RoundDownScope() { _mm_setcsr(saved_); }
  RoundDownScope(const RoundDownScope&) = delete;
  RoundDownScope& operator=(const RoundDownScope&) = delete;

 private:
  static constexpr unsigned kRoundingBits = 0x6000u, kRoundDown = 0x2000u;  // MXCSR.RC, RC = 01
  unsigned saved_;
};

template <RoundingMode Mode>
__attribute__((always_inline)) inline RequantLanes<Mode> load_requant_lanes(const RequantConstants& plan,
                                                                           std::size_t channel) {
  const std::size_t i = plan.per_channel ? channel : 0;  // no call into shared inline code (ISA flags)
  RequantLanes<Mode> q{};
  if constexpr (Mode == RoundingMode::tflite || Mode == RoundingMode::arm || Mode == RoundingMode::upward ||
                Mode == RoundingMode::tonearest) {
    q.multiplier = load8(&plan.multiplier[i]);
    q.multiplier_odd = odd_lanes_down(q.multiplier);
  }
  if constexpr (Mode == RoundingMode::tflite) {
    q.left_shift = load8(&plan.left_shift[i]);
    q.right_shift = load8(&plan.right_shift[i]);
    q.rdpot_mask = load8(&plan.rdpot_mask[i]);
    q.rdpot_half = load8(&plan.rdpot_half[i]);
  } else if constexpr (Mode == RoundingMode::arm) {
    // Per-tensor plans hold copies of their one channel: index 0 for both parities.
    const std::size_t odd = plan.per_channel ? channel + 1 : 0;
    q.left_shift = load8(&plan.left_shift[i]);
    q.right_shift = load8(&plan.arm_round_shift[i]);
    q.add_even = load4_by_parity(plan.shift_add, i);
    q.add_odd = load4_by_parity(plan.shift_add, odd);
    q.widen_even = arm_widen_count(load4_by_parity(plan.shift_count, i));
    q.widen_odd = arm_widen_count(load4_by_parity(plan.shift_count, odd));
  } else if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    const __m256i shift_m1 = load8(&plan.product_shift_m1[i]);
    q.shift_m1_even = _mm256_and_si256(shift_m1, _mm256_set1_epi64x(0xFFFFFFFF));
    q.shift_m1_odd = _mm256_srli_epi64(shift_m1, 32);
  } else if constexpr (Mode == kFp32Centred) {
    q.index = i;
    q.scale = _mm256_loadu_ps(&plan.scale[i]);
    q.offset = _mm256_loadu_ps(&plan.fp32_offset[i]);
  } else {
    static_assert(kFloatEpilogue<Mode>);
    q.scale = _mm256_loadu_ps(&plan.scale[i]);
    if constexpr (Mode == kFp32Offset) q.offset = _mm256_loadu_ps(&plan.fp32_offset[i]);
  }
  return q;
}

// 8 lanes requantized with a column's constants: values already clamped and offset by the zero
// point, i.e. in [qmin, qmax]. Always inlined, with the constants in registers across a column.
// OriginFolded (kFp32Centred only): the accumulators hold acc - X0, computed exactly in int32 (the
// fused GEMM and depthwise epilogues, where centred_origin_foldable holds), and the caller holds a
// RoundDownScope: converted, fma'd with the scale and the addend, clamped and converted back, all
// under MXCSR's rounding down. Exact as the AVX-512 form (embedded rounding) is: where the result
// is not clamped |acc - X0| < 2^24, so the first conversion is exact in any rounding; beyond, every
// step is monotone and both forms clamp.
template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m256i requantize8(__m256i acc, const RequantLanes<Mode>& q,
                                                          const RequantConstants& plan) {
  __m256i v;
  if constexpr (Mode == RoundingMode::tflite) {
    const __m256i t = srdhm(_mm256_sllv_epi32(acc, q.left_shift), q.multiplier, q.multiplier_odd);
    v = clamp_epi32(rdpot(t, q.right_shift, q.rdpot_mask, q.rdpot_half), plan.lo, plan.hi);
  } else if constexpr (Mode == RoundingMode::arm) {
    const __m256i x = _mm256_sllv_epi32(acc, q.left_shift);  // wraps, as scalar::arm
    const __m256i even = arm_one_shift_half(_mm256_mul_epi32(x, q.multiplier), q.add_even, q.widen_even);
    const __m256i odd = arm_one_shift_half(_mm256_mul_epi32(odd_lanes_down(x), q.multiplier_odd), q.add_odd,
                                           q.widen_odd);
    const __m256i high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
    v = clamp_epi32(_mm256_srav_epi32(high, q.right_shift), plan.lo, plan.hi);
  } else if constexpr (Mode == RoundingMode::upward || Mode == RoundingMode::tonearest) {
    v = single_rounding<Mode == RoundingMode::tonearest>(acc, q.multiplier, q.multiplier_odd, q.shift_m1_even,
                                                         q.shift_m1_odd, plan.lo, plan.hi);
  } else if constexpr (Mode == kFp32Centred && OriginFolded) {
    const __m256 f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), q.scale, q.offset);
    v = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(f, _mm256_set1_ps(static_cast<float>(plan.lo))),
                                         _mm256_set1_ps(static_cast<float>(plan.hi))));
  } else if constexpr (Mode == kFp32Centred) {
    // Lane by lane: AVX2 plans take this form only where the epilogue folds the origin
    // (FloatForms::centred_when_folded); it is here so that every mode has a kernel.
    alignas(32) std::int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
    for (std::size_t j = 0; j < 8; ++j) {
      const std::size_t c = plan.per_channel ? q.index + j : 0;
      lanes[j] = scalar::fp32_centred(lanes[j], plan.scale[c], plan.fp32_origin[c], plan.fp32_offset[c], plan.lo,
                                      plan.hi);
    }
    v = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  } else {
    static_assert(kFloatEpilogue<Mode>);
    // maxps/minps return the second operand for a NaN first operand: a NaN becomes lo, as in
    // scalar::fp32. cvtps2dq rounds half to even under the default MXCSR.
    const __m256 x = _mm256_cvtepi32_ps(acc);
    __m256 f;
    if constexpr (Mode == kFp32Offset) {
      // The offset with the sign of x (scalar::fp32_offset), fused with the product.
      const __m256 sign_bit = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<std::int32_t>(0x80000000u)));
      f = _mm256_fmadd_ps(x, q.scale, _mm256_or_ps(_mm256_and_ps(x, sign_bit), q.offset));
    } else {
      f = _mm256_mul_ps(x, q.scale);
    }
    f = _mm256_min_ps(_mm256_max_ps(f, _mm256_set1_ps(static_cast<float>(plan.lo))),
                      _mm256_set1_ps(static_cast<float>(plan.hi)));
    v = _mm256_cvtps_epi32(f);
  }
  return _mm256_add_epi32(v, _mm256_set1_epi32(plan.zero_point));
}

// 8 lanes of channels [channel, channel + 8) (per-tensor plans ignore channel).
// Always inlined: as a call it would reload its constants for every vector (observed for the
// depthwise epilogue), inlined they are loaded once per channel vector and stay in registers.
template <RoundingMode Mode, bool OriginFolded = false>
__attribute__((always_inline)) inline __m256i requantize8(__m256i acc, const RequantConstants& plan, std::size_t channel) {
  return requantize8<Mode, OriginFolded>(acc, load_requant_lanes<Mode>(plan, channel), plan);
}

// ---- loads and stores of n <= 8 lanes (ragged edges) ------------------------------------------

// Lane k active when k < n.
inline __m256i lane_mask(std::size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Loads src[0..n) and zeros elsewhere, without touching memory past src + n.
inline __m256i load_partial(const std::int32_t* src, std::size_t n) {
  if (n == 8) return load8(src);
  return _mm256_maskload_epi32(reinterpret_cast<const int*>(src), lane_mask(n));
}

// 8 int32 lanes to 8 int16 (signed saturation; the values are already in range).
inline __m128i narrow_to_i16(__m256i v) {
  return _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

inline void store_bytes(void* dst, __m128i bytes, std::size_t n) {
  if (n == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), bytes);
  } else {
    const std::uint64_t low = static_cast<std::uint64_t>(_mm_cvtsi128_si64(bytes));
    std::memcpy(dst, &low, n);
  }
}

// Stores the first n (<= 8) lanes of v, values in [0, 255], as uint8.
inline void store_u8(std::uint8_t* dst, __m256i v, std::size_t n) {
  const __m128i h = narrow_to_i16(v);
  store_bytes(dst, _mm_packus_epi16(h, h), n);
}

// Stores the first n (<= 8) lanes of v, values in [-128, 127], as int8.
inline void store_s8(std::int8_t* dst, __m256i v, std::size_t n) {
  const __m128i h = narrow_to_i16(v);
  store_bytes(dst, _mm_packs_epi16(h, h), n);
}

inline void store(std::uint8_t* dst, __m256i v, std::size_t n) { store_u8(dst, v, n); }
inline void store(std::int8_t* dst, __m256i v, std::size_t n) { store_s8(dst, v, n); }

}  // namespace qtune::detail::avx2
