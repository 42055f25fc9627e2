#include "int32_sums.h"

#include <algorithm>

#include "qtune/kernels/target_clones.h"

namespace qtune::libraries::detail {
namespace {

template <typename Byte>
inline void row_sums_of(const Byte* bytes, std::size_t count, std::size_t length, std::int32_t* sums) {
  if (length == 1) {  // depthwise: the sums are the bytes, widened (a loop over rows to vectorize)
    for (std::size_t i = 0; i < count; ++i) sums[i] = bytes[i];
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Byte* row = bytes + i * length;
    std::int32_t sum = 0;
    for (std::size_t k = 0; k < length; ++k) sum += row[k];
    sums[i] = sum;
  }
}

}  // namespace

QTUNE_CLONED_FOR_AVX512
void byte_row_sums(const std::uint8_t* bytes, std::size_t count, std::size_t length, std::int32_t* sums) {
  row_sums_of(bytes, count, length, sums);
}

QTUNE_CLONED_FOR_AVX512
void byte_row_sums(const std::int8_t* bytes, std::size_t count, std::size_t length, std::int32_t* sums) {
  row_sums_of(bytes, count, length, sums);
}

QTUNE_CLONED_FOR_AVX512
void add_int32_rows(const std::int32_t* rows, const std::int64_t* at, std::size_t count, std::size_t width,
                    std::int32_t* out) {
  if (count == 0) {
    std::fill(out, out + width, 0);
    return;
  }
  // The first row copied, the others added: no zero fill to store and reload.
  std::copy(rows + at[0] * static_cast<std::int64_t>(width), rows + (at[0] + 1) * static_cast<std::int64_t>(width), out);
  for (std::size_t i = 1; i < count; ++i) {
    const std::int32_t* in = rows + at[i] * static_cast<std::int64_t>(width);
    for (std::size_t j = 0; j < width; ++j) out[j] += in[j];
  }
}

}  // namespace qtune::libraries::detail
