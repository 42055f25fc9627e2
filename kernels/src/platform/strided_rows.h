// Tables of row pointers, as long as a layer's rows and filled on every call: at a constant
// stride, what the GEMM driver hands its microkernels for dense A read in place (12544 rows for
// MobileNetV2's 112x112 1x1 layers) and what a convolution's window terms hand the row-sum kernels
// for its input pixels (22201 for InceptionV3's 149x149 input); at offsets from one base, the
// output pixels of a convolution read in place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qtune::detail {

// rows[i] = first + i * stride for i < count. The baseline x86-64 build stores two pointers per
// 16-byte store, a visible share of a layer whose rows are short (one pointer per 32 bytes of A in
// MobileNetV2's expanded_conv/project, K = 32); on x86 GCC builds a clone for CPUs with AVX-512
// stores eight at a time (docs/measurements.md, "GEMM driver").
void fill_strided_rows(const std::uint8_t** rows, const std::uint8_t* first, std::size_t stride, std::size_t count);

// rows[i] = base + offsets[i] for i < count: the rows of segmented A (a convolution's output
// pixels read in place, GemmASource::dense_segments), cloned the same way.
void fill_offset_rows(const std::uint8_t** rows, const std::uint8_t* base, const std::size_t* offsets,
                      std::size_t count);

}  // namespace qtune::detail
