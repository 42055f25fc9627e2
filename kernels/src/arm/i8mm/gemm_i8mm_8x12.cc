// The i8mm 8x12 tile, in a translation unit of its own because it is compiled without GCC's first
// instruction-scheduling pass (-fno-schedule-insns, kernels/CMakeLists.txt). Its 24 accumulators
// leave 8 of the 32 vector registers for a k group's 4 A and 6 B vectors; that pass moved all the
// B loads ahead of the usmmla that use them, and the register allocator then spilled inside the
// k-loop. Without it the loop keeps everything in registers; the other i8mm tiles keep the pass,
// which helps them on in-order cores (the predictions: docs/arm-static-analysis.md).
#include "arm/i8mm/i8mm_core.h"

namespace qtune::detail {

GemmUkernel i8mm_gemm_8x12_ukernel() { return arm::make_arm_gemm_ukernel<I8mmCore<8, 12>>("qu8s8-gemm-8x12c8-i8mm"); }

}  // namespace qtune::detail
