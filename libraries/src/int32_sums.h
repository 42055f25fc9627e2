// The sums qtune's side of a library layer needs beside the library's raw dot products: activation
// sums for weight zero points (per row of A, per pixel and group of a convolution's input, over a
// convolution's windows). Plain loops, cloned for AVX-512 (qtune/kernels/target_clones.h). Internal.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qtune::libraries::detail {

// sums[i] = the sum of bytes [i * length, (i + 1) * length) of `bytes`, for i < count: u8
// zero-extended, s8 sign-extended.
void byte_row_sums(const std::uint8_t* bytes, std::size_t count, std::size_t length, std::int32_t* sums);
void byte_row_sums(const std::int8_t* bytes, std::size_t count, std::size_t length, std::int32_t* sums);

// out[0, width) = the sum of the rows at[0..count) of `rows` (row i at rows + i * width); zeros
// when count is 0.
void add_int32_rows(const std::int32_t* rows, const std::int64_t* at, std::size_t count, std::size_t width,
                    std::int32_t* out);

}  // namespace qtune::libraries::detail
