// A tensor stored as a serialized ONNX TensorProto (the input_N.pb / output_N.pb files of ONNX's
// node tests), with its values as the bytes qtune's operators read and write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qtune::onnx_import {

struct TensorFile {
  std::string name;
  std::vector<std::int64_t> dims;
  std::string type;                  // uint8, int8, int32, float or int64 (ONNX's names)
  std::vector<std::uint8_t> bytes;   // the elements in native order, 1, 4 or 8 bytes each
};

// ModelError naming the file when it is not a TensorProto, not uint8/int8/int32/float/int64 (int64:
// the shapes and axes of ONNX's test data), or its values do not match its dims.
TensorFile read_tensor_file(const std::string& path);

// Writes `tensor` as a serialized TensorProto (its values as raw_data) that read_tensor_file and
// onnx.numpy_helper read back. Written to PATH.tmp and renamed, so that a failed write leaves no
// file; ModelError naming the file for a type other than the four, values that do not match the
// dims, or a file that cannot be written.
void write_tensor_file(const std::string& path, const TensorFile& tensor);

}  // namespace qtune::onnx_import
