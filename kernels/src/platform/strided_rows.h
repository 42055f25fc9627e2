// Tables of row pointers: at a constant stride, what the GEMM driver hands its microkernels for
// dense A read in place, and what a convolution's window terms hand the row-sum kernels for its
// input pixels; at offsets from one base, the output pixels of a convolution read in place. They are as long as the layer's rows (12544 for MobileNetV2's 112x112 layers,
// 22201 pixels for InceptionV3's 149x149 input), and filled on every call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qtune::detail {

// rows[i] = first + i * stride for i < count. The baseline x86-64 build stores two pointers per
// 16-byte store, which took 7% of MobileNetV2's expanded_conv/project (K = 32); on x86 GCC builds
// a clone for CPUs with AVX-512 stores eight at a time (33.3 -> 31.7 us, qtune measure --stable,
// AMD EPYC).
void fill_strided_rows(const std::uint8_t** rows, const std::uint8_t* first, std::size_t stride, std::size_t count);

// rows[i] = base + offsets[i] for i < count: the rows of segmented A (a convolution's output
// pixels read in place, GemmASource::dense_segments), cloned the same way.
void fill_offset_rows(const std::uint8_t** rows, const std::uint8_t* base, const std::size_t* offsets,
                      std::size_t count);

}  // namespace qtune::detail
