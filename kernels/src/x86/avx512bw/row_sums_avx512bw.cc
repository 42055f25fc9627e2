// The AVX-512 row sums without VNNI (x86/avx512bw/row_sums_avx512.h): psadbw for every row length.
// The dense kernel serves the VNNI family too (it uses no VNNI instruction).
#include "x86/avx512bw/row_sums_avx512.h"

#include "gemm/gemm_pack.h"

namespace qtune::detail {

void a_row_sums_avx512bw(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                         std::int32_t* row_terms) {
  row_sums_avx512::sum_rows<false>(flip, rows, count, k_bytes, row_terms);
}

bool a_dense_row_sums_avx512(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                             std::int32_t* row_terms) {
  return row_sums_avx512::sum_dense_rows(flip, first, count, row_bytes, row_terms);
}

}  // namespace qtune::detail
