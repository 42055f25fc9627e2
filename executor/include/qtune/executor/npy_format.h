// NumPy's .npy format (numpy.lib.format) over bytes in memory, for the four element types of
// qtune's tensors: the part of tensor_files.h that depends on nothing but the standard library,
// so that the fuzz build (which has no ONNX) compiles it into its target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qtune/executor/model_executor.h"
#include "qtune/executor/tensor_files.h"

namespace qtune::executor {

// The tensor in `bytes`, a whole .npy file of format version 1.0, 2.0 or 3.0 in C order with dtype
// '|u1' / '<u1', '|i1' / '<i1', '<i4' or '<f4'. Anything else is a TensorFileError naming `name`
// and the field ('magic', 'version', 'header_len', 'header', 'descr', 'fortran_order', 'shape' or
// 'data'). Safe on any bytes: every length is checked against what is there before it is used.
Tensor parse_npy(const std::string& name, std::string_view bytes);

// The .npy file of `tensor`, as numpy.save writes it: format version 1.0, dtype '|u1', '|i1',
// '<i4' or '<f4', the header padded with spaces so that the data starts at a multiple of 64 bytes.
// std::invalid_argument when the bytes do not match the shape.
std::string npy_bytes(const Tensor& tensor);

// The bytes a tensor of `type` and `shape` holds (0 when a dimension is 0); std::invalid_argument
// for a negative dimension or more than 2^63 bytes. What both file formats check before writing.
std::size_t tensor_data_bytes(ElementType type, const std::vector<std::int64_t>& shape);

}  // namespace qtune::executor
