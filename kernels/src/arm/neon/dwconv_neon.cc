// NEON depthwise kernels: the shared template (dwconv/dwconv_template.h) over NeonVector, 4 int32
// lanes per vector, exact 16x16 products with smull / smull2 + addp, fused requantization with
// requant_neon.h. The dotprod and i8mm CPUs run these too: their rows offer no depthwise family
// yet. sdot / usdot could take the AVX-512 dot4 form (dwconv_avx512vnni.cc: weight vector j holds
// only byte j of each lane, so raw NHWC bytes need no widening), with usdot (i8mm) matching
// vpdpbusd's u8 x s8 exactly and sdot needing the x ^ 0x80 flip of u8 inputs plus 128 * sum(w) per
// channel; but a 64-channel block is 16 accumulators per pixel, half the register file, so only
// 1-pixel tiles (or half blocks) fit, and that form is not written yet.
#include <array>

#include "arm/neon/neon_vector.h"
#include "dwconv/dwconv_template.h"

namespace qtune::detail {
namespace {

constexpr std::array kNeonKernels = {
    QTUNE_DW_KERNEL(NeonVector, 8, 1),  QTUNE_DW_KERNEL(NeonVector, 16, 1), QTUNE_DW_KERNEL(NeonVector, 32, 1),
    QTUNE_DW_KERNEL(NeonVector, 8, 2),  QTUNE_DW_KERNEL(NeonVector, 16, 2), QTUNE_DW_KERNEL(NeonVector, 32, 2),
    QTUNE_DW_KERNEL(NeonVector, 8, 4),  QTUNE_DW_KERNEL(NeonVector, 16, 4), QTUNE_DW_KERNEL(NeonVector, 32, 4),
    // 7 pixels (rows of 7 * 2^k pixels in whole tiles, dw_tile_at), two vectors of channels: 14
    // accumulators beside a kernel row's 9 inputs (tile_rows). Faster on x86 (AVX-512, AVX2) on
    // MobileNetV2's 7 to 28 wide rows; not measured on an Arm board (qemu timings mean nothing), so
    // left to the tuner, not a default.
    QTUNE_DW_KERNEL(NeonVector, 8, 7),
};

}  // namespace

std::span<const DwKernel> dw_kernels_neon() { return kNeonKernels; }

}  // namespace qtune::detail
