// The standalone requantization kernels for AVX-512: the generic row loop over requant_avx512.h.
#include "x86/avx512vnni/requant_avx512.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {

namespace {

struct Avx512Vectors {
  using Vec = __m512i;
  static constexpr std::size_t kLanes = 16;
  static Vec load(const std::int32_t* p) { return avx512::load16(p); }
  static Vec load_partial(const std::int32_t* p, std::size_t n) { return avx512::load_partial(p, n); }
  template <RoundingMode Mode>
  static Vec requantize(Vec acc, const RequantConstants& plan, std::size_t channel) {
    return avx512::requantize16<Mode>(acc, plan, channel);
  }
  template <class Out>
  static void store(Out* dst, Vec v, std::size_t n) { avx512::store(dst, v, n); }
};

}  // namespace

void requantize_rows_avx512(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                            std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                            std::size_t out_stride) {
  requantize_rows_dispatch<Avx512Vectors>(unroll, plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
}

}  // namespace qtune::detail
