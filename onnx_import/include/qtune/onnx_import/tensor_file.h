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
  std::string type;                  // uint8, int8, int32 or float (ONNX's names)
  std::vector<std::uint8_t> bytes;   // the elements in native order, 1 or 4 bytes each
};

// ModelError naming the file when it is not a TensorProto, not uint8/int8/int32/float, or its values
// do not match its dims.
TensorFile read_tensor_file(const std::string& path);

}  // namespace qtune::onnx_import
