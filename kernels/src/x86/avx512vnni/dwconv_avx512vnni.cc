// AVX-512 depthwise kernels: 16 int32 lanes per vector, vpdpwssd products, masked ragged edges,
// fused requantization with requant_avx512.h. Compiled with the avx512vnni folder's flags; only
// ever called after cpu_features().usable(Isa::avx512vnni).
#include "requant_avx512.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include <array>

#include "dwconv_template.h"

namespace qtune::detail {
namespace {

struct Avx512Traits {
  // Registered under the avx512vnni family: its TU flags (AVX-512 F/BW/VL) are what the kernel
  // needs, and it is the x86 AVX-512 level qtune detects.
  static constexpr Isa isa = Isa::avx512vnni;
  static constexpr int kLanes = 16;
  using Vec = __m512i;

  static Vec zero() { return _mm512_setzero_si512(); }
  static Vec load_i32(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  static Vec load_i32_partial(const std::int32_t* p, std::size_t n) { return avx512::load_partial(p, n); }
  template <bool Signed>
  static Vec widen(__m128i bytes) {
    if constexpr (Signed) {
      return _mm512_cvtepi8_epi32(bytes);
    } else {
      return _mm512_cvtepu8_epi32(bytes);
    }
  }
  template <bool Signed>
  static Vec load_x(const std::uint8_t* p) {
    return widen<Signed>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  template <bool Signed>
  static Vec load_x_partial(const std::uint8_t* p, std::size_t n) {
    // Masked-off bytes are never read (no fault past the row's last channel).
    return widen<Signed>(_mm_maskz_loadu_epi8(avx512::lane_mask(n), p));
  }
  // vpdpwssd (AVX-512 VNNI) is vpmaddwd and the add in one instruction. The high int16 half of a
  // weight lane is 0, so the high product of a sign-extended activation (-1 there) adds nothing.
  // Written as asm with the accumulator tied in place: with the intrinsic, GCC 12 gave each
  // accumulator two registers and copied between them on every tap (a move per product).
  static Vec madd_add(Vec acc, Vec x, Vec w) {
    asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
    return acc;
  }
  static Vec add(Vec a, Vec b) { return _mm512_add_epi32(a, b); }
  static void store_i32(std::int32_t* dst, Vec v, std::size_t n) {
    _mm512_mask_storeu_epi32(dst, avx512::lane_mask(n), v);
  }
  template <RoundingMode Mode>
  __attribute__((always_inline)) static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return avx512::requantize16<Mode>(v, plan, channel);
  }
  static void store_q8(std::uint8_t* dst, DType out_type, Vec q, std::size_t n) {
    if (out_type == DType::u8) {
      avx512::store_u8(dst, q, n);
    } else {
      avx512::store_s8(reinterpret_cast<std::int8_t*>(dst), q, n);
    }
  }
};

constexpr std::array kAvx512Kernels = {
    QTUNE_DW_KERNEL(Avx512Traits, 16, 1), QTUNE_DW_KERNEL(Avx512Traits, 32, 1), QTUNE_DW_KERNEL(Avx512Traits, 64, 1),
    QTUNE_DW_KERNEL(Avx512Traits, 16, 2), QTUNE_DW_KERNEL(Avx512Traits, 32, 2), QTUNE_DW_KERNEL(Avx512Traits, 64, 2),
    QTUNE_DW_KERNEL(Avx512Traits, 16, 4), QTUNE_DW_KERNEL(Avx512Traits, 32, 4), QTUNE_DW_KERNEL(Avx512Traits, 64, 4),
};

}  // namespace

std::span<const DwKernel> dw_kernels_avx512vnni() { return kAvx512Kernels; }

}  // namespace qtune::detail
