// The standalone requantization kernels for AVX2: the generic row loop over AVX2's vector operations.
#include "x86/avx2/avx2_vector.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {

void requantize_rows_avx2(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                          std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                          std::size_t out_stride) {
  requantize_rows_dispatch<Avx2Vector>(unroll, plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
}

}  // namespace qtune::detail
