// AVX2 depthwise kernels: 8 int32 lanes per vector, exact 16x16 products with vpmaddwd (the
// weight's high int16 half is 0), fused requantization with requant_avx2.h.
#include <array>

#include "dwconv/dwconv_template.h"
#include "x86/avx2/avx2_vector.h"

namespace qtune::detail {
namespace {

constexpr std::array kAvx2Kernels = {
    QTUNE_DW_KERNEL(Avx2Vector, 8, 1),  QTUNE_DW_KERNEL(Avx2Vector, 16, 1), QTUNE_DW_KERNEL(Avx2Vector, 32, 1),
    QTUNE_DW_KERNEL(Avx2Vector, 8, 2),  QTUNE_DW_KERNEL(Avx2Vector, 16, 2), QTUNE_DW_KERNEL(Avx2Vector, 32, 2),
    QTUNE_DW_KERNEL(Avx2Vector, 8, 4),  QTUNE_DW_KERNEL(Avx2Vector, 16, 4), QTUNE_DW_KERNEL(Avx2Vector, 32, 4),
    // 7 pixels (rows of 7 * 2^k pixels in whole tiles, dw_tile_at): one vector of channels, since 7
    // pixels of two would not fit their accumulators in 16 registers.
    QTUNE_DW_KERNEL(Avx2Vector, 8, 7),
};

}  // namespace

std::span<const DwKernel> dw_kernels_avx2() { return kAvx2Kernels; }

}  // namespace qtune::detail
