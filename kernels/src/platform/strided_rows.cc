#include "platform/strided_rows.h"

#include "qtune/kernels/target_clones.h"

namespace qtune::detail {

// Both loops are kept out of line (an ifunc picks the clone at load time), vectorized by GCC.

QTUNE_CLONED_FOR_AVX512
void fill_strided_rows(const std::uint8_t** rows, const std::uint8_t* first, std::size_t stride, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) rows[i] = first + i * stride;
}

QTUNE_CLONED_FOR_AVX512
void fill_offset_rows(const std::uint8_t** rows, const std::uint8_t* base, const std::size_t* offsets,
                      std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) rows[i] = base + offsets[i];
}

}  // namespace qtune::detail
