#include "gemm/row_term_scaling.h"

#include "qtune/kernels/target_clones.h"

namespace qtune::detail {

QTUNE_CLONED_FOR_AVX512
void scale_row_terms(std::int32_t* dst, const std::int32_t* src, std::size_t count, std::int32_t zb) {
  const auto factor = static_cast<std::uint32_t>(zb);
  for (std::size_t i = 0; i < count; ++i) {
    dst[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(src[i]) * factor);
  }
}

}  // namespace qtune::detail
