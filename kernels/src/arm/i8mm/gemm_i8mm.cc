// The `i8mm` GEMM family (Armv8.6 matrix multiply, optional from Armv8.2): usmmla multiplies a
// 2x8 u8 block of A by an 8x2 s8 block of B into a 2x2 int32 block, 32 exact MACs per
// instruction. A k group is kr = 8 values, so the packed layouts of gemm_ukernel.h line up with
// the operands directly: 16 bytes of an A panel are rows 2p, 2p+1 x 8 k, 16 bytes of a B panel are
// columns 2q, 2q+1 x 8 k. usmmla takes u8 activations and s8 weights as they are packed
// (PackedA::u8, s8 inputs flipped with ^0x80 by the packer), so no in-kernel flip and no extra
// compensation (smmla / ummla would need one operand re-signed).
// The accumulators are 2x2 blocks (i8mm_layout.h); an 8x12 tile is 4 x 6 blocks = 24 registers.
#include <arm_neon.h>

#include "arm/gemm_arm_tile.h"
#include "arm/i8mm/i8mm_core.h"

namespace qtune::detail {

std::span<const GemmUkernel> gemm_ukernels_i8mm() {
  // A function-local table: the 8x12 descriptor comes from another translation unit, so it is not
  // a constant here, and a local is initialized at its first use, after every other unit's.
  static const GemmUkernel kI8mmUkernels[] = {
      arm::make_arm_gemm_ukernel<I8mmCore<4, 4>>("qu8s8-gemm-4x4c8-i8mm"),
      arm::make_arm_gemm_ukernel<I8mmCore<4, 8>>("qu8s8-gemm-4x8c8-i8mm"),
      arm::make_arm_gemm_ukernel<I8mmCore<8, 8>>("qu8s8-gemm-8x8c8-i8mm"),
      i8mm_gemm_8x12_ukernel(),
  };
  return kI8mmUkernels;
}

}  // namespace qtune::detail
