// The AVX-512 BW depthwise kernels: AVX-512's general form (16 int32 lanes, masked ragged edges,
// fused requantization) with vpmaddwd products, for CPUs without VNNI. The dot4 form of the VNNI
// family has no exact counterpart here: vpmaddubsw's pair sums saturate.
#include "x86/avx512vnni/avx512_vector.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include <array>

#include "x86/avx512vnni/dwconv_avx512_tiles.h"

namespace qtune::detail {
namespace {

constexpr std::array kAvx512BwKernels = {QTUNE_AVX512_DW_GENERAL_KERNELS};

}  // namespace

std::span<const DwKernel> dw_kernels_avx512bw() { return kAvx512BwKernels; }

}  // namespace qtune::detail
