// Tensors in files, for `qtune infer` and the tests: NumPy's .npy (numpy.save / numpy.load) and
// ONNX's serialized TensorProto .pb (the input_N.pb / output_N.pb of ONNX's test data), chosen by
// the file's extension. Only the four element types the executor exchanges are read and written
// (uint8, int8, int32, float32), in the machine's (little-endian) byte order.
//
//   const qtune::executor::Tensor image = qtune::executor::read_tensor("image.npy");
//   qtune::executor::write_tensor("out/" + qtune::executor::tensor_file_name("logits", ".npy"), logits);
#pragma once

#include <stdexcept>
#include <string>

#include "qtune/executor/model_executor.h"

namespace qtune::executor {

// A tensor file that cannot be read (malformed, truncated, another type) or written; the message
// names the file and, for a malformed file, the field: "x.npy: field 'descr': dtype '<f8' is not
// one of uint8, int8, int32, float32".
struct TensorFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// .npy (format versions 1.0, 2.0 and 3.0, C order) or .pb; std::invalid_argument for another
// extension. A 0-d array has the shape {}.
Tensor read_tensor(const std::string& path);

// .npy (format version 1.0, laid out byte for byte as numpy.save lays it out) or .pb (named
// `tensor_name`; .npy files have no name). Written to PATH.tmp and renamed: a failed write leaves
// no file. std::invalid_argument for another extension or bytes that do not match the shape;
// TensorFileError when the file cannot be written.
void write_tensor(const std::string& path, const Tensor& tensor, const std::string& tensor_name = {});

// The file name for a graph tensor: its name with every character outside [A-Za-z0-9._-] replaced
// by '_' (tensor names may hold '/' or ':'), then `extension` (".npy"). An empty name gives "_",
// and a name of dots only ("..") becomes underscores, so that no name is a directory.
std::string tensor_file_name(const std::string& tensor_name, const std::string& extension);

}  // namespace qtune::executor
