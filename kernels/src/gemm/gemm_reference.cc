// The plain scalar definition of the quantized GEMM. The int32 accumulator wraps (computed in
// uint32), so every algebraic decomposition of the kernels is bit-exact with it.
#include <cstring>

#include "qtune/kernels/gemm.h"

namespace qtune {

void gemm_reference(const GemmProblem& problem, const void* a, std::size_t lda, const std::int8_t* b,
                    std::size_t ldb, const std::int32_t* bias, void* c, std::size_t ldc) {
  problem.validate();
  const auto* a_bytes = static_cast<const std::uint8_t*>(a);
  const bool a_signed = problem.a_type == DType::s8;
  const auto za = static_cast<std::uint32_t>(problem.a_zero_point);
  for (std::int64_t m = 0; m < problem.m; ++m) {
    for (std::int64_t n = 0; n < problem.n; ++n) {
      const std::int32_t zb = problem.b_zero_points.size() == 1 ? problem.b_zero_points[0]
                                                                 : problem.b_zero_points[static_cast<std::size_t>(n)];
      std::uint32_t acc = problem.has_bias ? static_cast<std::uint32_t>(bias[n]) : 0u;
      for (std::int64_t k = 0; k < problem.k; ++k) {
        const std::uint8_t raw = a_bytes[static_cast<std::size_t>(m) * lda + static_cast<std::size_t>(k)];
        const std::int32_t av = a_signed ? static_cast<std::int8_t>(raw) : raw;
        const std::int32_t bv = b[static_cast<std::size_t>(k) * ldb + static_cast<std::size_t>(n)];
        acc += (static_cast<std::uint32_t>(av) - za) * (static_cast<std::uint32_t>(bv) - static_cast<std::uint32_t>(zb));
      }
      const auto result = static_cast<std::int32_t>(acc);
      const std::size_t at = static_cast<std::size_t>(m) * ldc + static_cast<std::size_t>(n);
      switch (problem.out_type) {
        case DType::s32: static_cast<std::int32_t*>(c)[at] = result; break;
        case DType::u8:
          static_cast<std::uint8_t*>(c)[at] =
              static_cast<std::uint8_t>(requantize_reference(result, problem.requant, static_cast<std::size_t>(n)));
          break;
        case DType::s8:
          static_cast<std::int8_t*>(c)[at] =
              static_cast<std::int8_t>(requantize_reference(result, problem.requant, static_cast<std::size_t>(n)));
          break;
      }
    }
  }
}

}  // namespace qtune
