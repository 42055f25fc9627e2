// AVX2 depthwise kernels: 8 int32 lanes per vector, exact 16x16 products with vpmaddwd (the
// weight's high int16 half is 0), fused requantization with requant_avx2.h.
#include <immintrin.h>

#include <array>
#include <cstring>

#include "dwconv/dwconv_template.h"
#include "x86/avx2/requant_avx2.h"

namespace qtune::detail {
namespace {

struct Avx2Traits {
  static constexpr Isa isa = Isa::avx2;
  static constexpr int kLanes = 8;
  static constexpr int kVectorRegisters = 16;
  using Vec = __m256i;

  static Vec zero() { return _mm256_setzero_si256(); }
  static Vec load_i32(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static Vec load_i32_partial(const std::int32_t* p, std::size_t n) { return avx2::load_partial(p, n); }
  template <bool Signed>
  static Vec widen(__m128i bytes) {
    if constexpr (Signed) {
      return _mm256_cvtepi8_epi32(bytes);
    } else {
      return _mm256_cvtepu8_epi32(bytes);
    }
  }
  template <bool Signed>
  static Vec load_x(const std::uint8_t* p) {
    return widen<Signed>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  template <bool Signed>
  static Vec load_x_partial(const std::uint8_t* p, std::size_t n) {
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, p, n);  // never reads past the row's last channel
    return widen<Signed>(_mm_cvtsi64_si128(static_cast<long long>(bytes)));
  }
  static Vec madd_add(Vec acc, Vec x, Vec w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w)); }
  static Vec add(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  static void store_i32(std::int32_t* dst, Vec v, std::size_t n) {
    if (n == kLanes) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v);
    } else {
      _mm256_maskstore_epi32(reinterpret_cast<int*>(dst), avx2::lane_mask(n), v);
    }
  }
  template <RoundingMode Mode>
  __attribute__((always_inline)) static Vec requantize(Vec v, const RequantConstants& plan, std::size_t channel) {
    return avx2::requantize8<Mode>(v, plan, channel);
  }
  static void store_q8(std::uint8_t* dst, DType out_type, Vec q, std::size_t n) {
    if (out_type == DType::u8) {
      avx2::store_u8(dst, q, n);
    } else {
      avx2::store_s8(reinterpret_cast<std::int8_t*>(dst), q, n);
    }
  }
};

constexpr std::array kAvx2Kernels = {
    QTUNE_DW_KERNEL(Avx2Traits, 8, 1),  QTUNE_DW_KERNEL(Avx2Traits, 16, 1), QTUNE_DW_KERNEL(Avx2Traits, 32, 1),
    QTUNE_DW_KERNEL(Avx2Traits, 8, 2),  QTUNE_DW_KERNEL(Avx2Traits, 16, 2), QTUNE_DW_KERNEL(Avx2Traits, 32, 2),
    QTUNE_DW_KERNEL(Avx2Traits, 8, 4),  QTUNE_DW_KERNEL(Avx2Traits, 16, 4), QTUNE_DW_KERNEL(Avx2Traits, 32, 4),
};

}  // namespace

std::span<const DwKernel> dw_kernels_avx2() { return kAvx2Kernels; }

}  // namespace qtune::detail
