// The standalone requantization kernels for AVX2: the generic row loop over requant_avx2.h.
#include "x86/avx2/requant_avx2.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {

namespace {

struct Avx2Vectors {
  using Vec = __m256i;
  static constexpr std::size_t kLanes = 8;
  static Vec load(const std::int32_t* p) { return avx2::load8(p); }
  static Vec load_partial(const std::int32_t* p, std::size_t n) { return avx2::load_partial(p, n); }
  template <RoundingMode Mode>
  static Vec requantize(Vec acc, const RequantConstants& plan, std::size_t channel) {
    return avx2::requantize8<Mode>(acc, plan, channel);
  }
  template <class Out>
  static void store(Out* dst, Vec v, std::size_t n) { avx2::store(dst, v, n); }
};

}  // namespace

void requantize_rows_avx2(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                          std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                          std::size_t out_stride) {
  requantize_rows_dispatch<Avx2Vectors>(unroll, plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
}

}  // namespace qtune::detail
