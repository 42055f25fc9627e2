// The scalar GEMM family: portable C++ that emulates vpdpbusd's semantics (u8 x s8 products summed
// in groups of 4 into wrapping int32 lanes), so that it uses exactly the packing of the VNNI
// families (PackedA::u8 with the s8 -> u8 flip and +128 zero-point compensation, PackedB::s8, kr 4)
// and reads A in place the same way. On a CPU without VNNI this is what tests that packing logic.
#include "gemm/gemm_ukernel_template.h"
#include "vector/scalar_vector.h"

namespace qtune::detail {
namespace {

struct ScalarC4Traits : ScalarVector {
  static constexpr int kKr = 4;
  static constexpr std::size_t kAElem = 1, kBElem = 1;
  static constexpr PackedA kAFormat = PackedA::u8;
  static constexpr PackedB kBFormat = PackedB::s8;
  static constexpr bool kInPlace = true;

  using Acc = Vec;              // wrapping int32
  using AVec = std::uint32_t;   // 4 u8 values
  using BVec = std::uint32_t;   // 4 s8 values

  static BVec load_b(const std::uint8_t* p) { return gemm_load_u32(p); }
  static AVec broadcast_a(const std::uint8_t* p) { return gemm_load_u32(p); }
  static AVec broadcast_bits(std::uint32_t bits) { return bits; }
  static AVec xor_bits(AVec a, std::uint32_t bits) { return a ^ bits; }
  static void prefetch_b(const std::uint8_t*) {}

  // vpdpbusd on one lane: four u8 x s8 products (each fits in int16) summed into the accumulator.
  static Acc dot(Acc acc, AVec a, BVec b) {
    std::int32_t sum = 0;
    for (int t = 0; t < 4; ++t) {
      const auto av = static_cast<std::int32_t>(static_cast<std::uint8_t>(a >> (8 * t)));
      const auto bv = static_cast<std::int32_t>(static_cast<std::int8_t>(static_cast<std::uint8_t>(b >> (8 * t))));
      sum += av * bv;
    }
    return acc + static_cast<Acc>(sum);
  }
};

constexpr GemmUkernel kScalarUkernels[] = {
    make_gemm_ukernel<ScalarC4Traits, 1, 4>("qu8-gemm-1x4c4-scalar"),
    make_gemm_ukernel<ScalarC4Traits, 4, 4>("qu8-gemm-4x4c4-scalar"),
    make_gemm_ukernel<ScalarC4Traits, 8, 8>("qu8-gemm-8x8c4-scalar"),
    make_gemm_ukernel<ScalarC4Traits, 8, 12>("qu8-gemm-8x12c4-scalar"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_scalar() { return kScalarUkernels; }

}  // namespace qtune::detail
