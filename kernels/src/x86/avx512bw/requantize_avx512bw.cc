// The standalone requantization kernels of the AVX-512 BW family: AVX-512's row loop
// (requant_avx512.h uses no VNNI instruction), compiled without VNNI for the CPUs that lack it.
#include "x86/avx512vnni/avx512_vector.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {

void requantize_rows_avx512bw(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                              std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                              std::size_t out_stride) {
  requantize_rows_dispatch<Avx512Vector>(unroll, plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
}

}  // namespace qtune::detail
