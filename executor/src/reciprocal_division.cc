#include "reciprocal_division.h"

#include "vector_paths.h"
#include "x86_intrinsics.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>


namespace qtune::executor {
namespace {

#if defined(__x86_64__)
// Every a in [1, 2): the iteration against the true quotient, 16 significands at a time.
__attribute__((target("avx512f"))) bool iteration_equals_division(float b, float y) {
  const __m512 vb = _mm512_set1_ps(b), vy = _mm512_set1_ps(y);
  const __m512i one = _mm512_set1_epi32(std::bit_cast<std::int32_t>(1.0f));
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  __mmask16 differ = 0;
  for (std::int32_t m = 0; m < (1 << 23); m += 16) {
    const __m512 a = _mm512_castsi512_ps(_mm512_add_epi32(one, _mm512_add_epi32(lanes, _mm512_set1_epi32(m))));
    const __m512 q = _mm512_mul_ps(a, vy);
    const __m512 r = _mm512_fnmadd_ps(q, vb, a);
    const __m512 fast = _mm512_fmadd_ps(r, vy, q);
    differ |= _mm512_cmp_epi32_mask(_mm512_castps_si512(fast), _mm512_castps_si512(_mm512_div_ps(a, vb)), _MM_CMPINT_NE);
  }
  return differ == 0;
}
#endif

}  // namespace

bool reciprocal_divisor_in_range(float b) {
  const float magnitude = std::fabs(b);
  return magnitude >= 0x1p-40f && magnitude <= 0x1p40f;
}

ReciprocalDivisor reciprocal_divisor(float b) {
  ReciprocalDivisor d;
  d.divisor = b;
  d.reciprocal = 1.0f / b;
#if defined(__x86_64__)
  if (!avx512_paths() || !reciprocal_divisor_in_range(b)) return d;
  static std::mutex mutex;
  static std::map<std::uint32_t, bool> checked;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, inserted] = checked.try_emplace(std::bit_cast<std::uint32_t>(b), false);
  if (inserted) it->second = iteration_equals_division(b, d.reciprocal);
  d.exact = it->second;
#endif
  return d;
}

}  // namespace qtune::executor
