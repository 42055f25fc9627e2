// The AVX2 GEMM family: A and B widened to int16 (PackedA::s16 / PackedB::s16, kr 2; the one-row
// tile keeps B int8, below) and vpmaddwd, which multiplies int16 pairs and adds each pair into an
// int32 lane: 16 exact MACs per instruction. vpmaddubsw would take the bytes directly, but its
// int16 pair sums saturate (255 * 127 * 2 > 32767), so it is not bit-exact and is not used (the
// avx2ubsw family uses it where clipped weight pairs make it exact). Because A must be widened to
// int16, this family cannot read A in place (pack_a = 0 is not offered).
//
// Register budget (16 ymm): an MR x NR tile holds MR * NR/8 accumulators, plus NR/8 B vectors, one
// A broadcast and vpmaddwd's product; 6x16 and 4x24 (12 accumulators) keep one B vector in a
// register and read the others from the panel in each row's vpmaddwd (GemmTileKernel::kBInRegisters),
// the largest tiles that do not spill.
#include "x86/gemm_x86_ukernel.h"

namespace qtune::detail {
namespace {

struct Avx2Traits : YmmBase {
  static constexpr int kKr = 2;
  static constexpr std::size_t kAElem = 2, kBElem = 2;
  static constexpr PackedA kAFormat = PackedA::s16;
  static constexpr PackedB kBFormat = PackedB::s16;
  static constexpr bool kInPlace = false;

  static Acc dot(Acc acc, AVec a, BVec b) { return madd(acc, a, b); }

  // vpmaddwd's product needs a register of its own before vpaddd takes it.
  static constexpr int kDotScratch = 1;

  // dot with B as vpmaddwd's memory operand. In asm because GCC would merge the rows' loads of
  // the same B vector into one register held across the rows, the pressure this avoids.
  static Acc dot_from(Acc acc, AVec a, const std::uint8_t* b) {
    __m256i product;
    asm("vpmaddwd %2, %1, %0" : "=x"(product) : "x"(a), "m"(*reinterpret_cast<const __m256i*>(b)));
    return _mm256_add_epi32(acc, product);
  }
};

// The one-row tile (matrix-vector layers, M = 1), which streams B once with one product per load:
// B stays int8 (a pair of k per column, 16 bytes a vector) and is widened as it is loaded
// (vpmovsxbw from memory), half the bytes of an int16 panel, as avx512bw's one-row tiles do.
struct Avx2ByteBTraits : Avx2Traits {
  static constexpr std::size_t kBElem = 1;
  static constexpr PackedB kBFormat = PackedB::s8;

  static BVec load_b(const std::uint8_t* p) {
    return _mm256_cvtepi8_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
  }
  // Avx2Traits's memory operand is int16; a one-row tile keeps its few B vectors in registers.
  static Acc dot_from(Acc, AVec, const std::uint8_t*) = delete;
};

constexpr GemmUkernel kAvx2Ukernels[] = {
    make_gemm_ukernel<Avx2Traits, 1, 8>("qs16-gemm-1x8c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 4, 4>("qs16-gemm-4x4c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 4, 8>("qs16-gemm-4x8c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 4, 16>("qs16-gemm-4x16c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 4, 24>("qs16-gemm-4x24c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 6, 16>("qs16-gemm-6x16c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 8, 8>("qs16-gemm-8x8c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 8, 12>("qs16-gemm-8x12c2-avx2"),
    make_gemm_ukernel<Avx2Traits, 8, 16>("qs16-gemm-8x16c2-avx2"),
    make_gemm_ukernel<Avx2ByteBTraits, 1, 32>("qs16-gemm-1x32c2-avx2"),
};

}  // namespace

GemmDotPeak gemm_dot_peak_avx2() { return {Avx2Traits::kIsa, "vpmaddwd + vpaddd ymm", &x86_dot_peak_loop<Avx2Traits>}; }

std::span<const GemmUkernel> gemm_ukernels_avx2() { return kAvx2Ukernels; }

}  // namespace qtune::detail
