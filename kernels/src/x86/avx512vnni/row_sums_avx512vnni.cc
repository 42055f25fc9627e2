// The AVX-512 row sums with VNNI (x86/avx512bw/row_sums_avx512.h): vpdpbusd for rows over 32 bytes.
#include "x86/avx512bw/row_sums_avx512.h"

#include "gemm/gemm_pack.h"

namespace qtune::detail {

void a_row_sums_avx512vnni(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count,
                           std::size_t k_bytes, std::int32_t* row_terms) {
  row_sums_avx512::sum_rows<true>(flip, rows, count, k_bytes, row_terms);
}

}  // namespace qtune::detail
