// The AVX-512 VNNI GEMM family: EVEX vpdpbusd on zmm (u8 x s8, four products per int32 lane),
// 16 columns per vector, ragged columns stored with masks. A is PackedA::u8 (s8 activations
// flipped with +128 zero-point compensation), B PackedB::s8 in groups of 4; A can also be read in
// place. 32 zmm registers: up to 25 accumulators (12x32, 8x48, 6x64, 5x80) leave room for B and broadcasts.
#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx512VnniTraits : ZmmBase {
  static constexpr int kKr = 4;
  static constexpr std::size_t kAElem = 1, kBElem = 1;
  static constexpr PackedA kAFormat = PackedA::u8;
  static constexpr PackedB kBFormat = PackedB::s8;
  static constexpr bool kInPlace = true;

  static Acc dot(Acc acc, AVec a, BVec b) { return _mm512_dpbusd_epi32(acc, a, b); }
  // The half-width forms (AVX-512 VL, ymm): the upper lanes of the result are zero. The casts
  // cost nothing; a 256-bit EVEX instruction writes the low half of the same register.
  static BVec load_b_half(const std::uint8_t* p) {
    return _mm512_zextsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static Acc dot_half(Acc acc, AVec a, BVec b) {
    return _mm512_zextsi256_si512(
        _mm256_dpbusd_epi32(_mm512_castsi512_si256(acc), _mm512_castsi512_si256(a), _mm512_castsi512_si256(b)));
  }
};

constexpr GemmUkernel kAvx512VnniUkernels[] = {
    make_gemm_ukernel<Avx512VnniTraits, 1, 16>("qu8-gemm-1x16c4-avx512vnni"),
    // One row, four vectors: matrix-vector layers (a network's classifier, M = 1) stream B at one
    // vpdpbusd per load, where taller tiles repeat the one row in every rows' products.
    make_gemm_ukernel<Avx512VnniTraits, 1, 64>("qu8-gemm-1x64c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 4>("qu8-gemm-4x4c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 16>("qu8-gemm-4x16c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 8>("qu8-gemm-8x8c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 12>("qu8-gemm-8x12c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 16>("qu8-gemm-8x16c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 32>("qu8-gemm-8x32c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 12, 32>("qu8-gemm-12x32c4-avx512vnni"),
    // A vector and a half: N = 24 layers (MobileNetV2's projections to 24 channels) without the
    // products of 8 padding columns (kHalfLast); 24 accumulators, like 12x32's budget.
    make_gemm_ukernel<Avx512VnniTraits, 12, 24>("qu8-gemm-12x24c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 16, 16>("qu8-gemm-16x16c4-avx512vnni"),
    // Wider panels: fewer broadcasts per vpdpbusd, and N = 48 * k / 64 * k layers without a
    // half-empty last panel (MobileNet's 144 / 192 channels).
    make_gemm_ukernel<Avx512VnniTraits, 6, 48>("qu8-gemm-6x48c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 8, 48>("qu8-gemm-8x48c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 4, 64>("qu8-gemm-4x64c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 6, 64>("qu8-gemm-6x64c4-avx512vnni"),
    // Five rows: M = 5 * k images (7x7: 49 of 50 rows used, where 4 rows use 49 of 52; 17x17 and
    // 35x35 likewise).
    make_gemm_ukernel<Avx512VnniTraits, 5, 64>("qu8-gemm-5x64c4-avx512vnni"),
    // Five vectors: N = 80 * k layers (InceptionV3's 80 and 160 channels, MobileNetV2's 160 and
    // 320) in whole panels, where 64- and 48-wide panels leave a part-empty one.
    make_gemm_ukernel<Avx512VnniTraits, 4, 80>("qu8-gemm-4x80c4-avx512vnni"),
    make_gemm_ukernel<Avx512VnniTraits, 5, 80>("qu8-gemm-5x80c4-avx512vnni"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avx512vnni() { return {Avx512VnniTraits::kIsa, "vpdpbusd zmm", &x86_dot_peak_loop<Avx512VnniTraits>}; }

std::span<const GemmUkernel> gemm_ukernels_avx512vnni() { return kAvx512VnniUkernels; }

}  // namespace qtune::detail
