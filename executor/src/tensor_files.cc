#include "qtune/executor/tensor_files.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "qtune/executor/npy_format.h"
#include "qtune/onnx_import/model.h"
#include "qtune/onnx_import/tensor_file.h"

namespace qtune::executor {

namespace {

constexpr ElementType kElementTypes[] = {ElementType::u8, ElementType::s8, ElementType::s32, ElementType::f32};

enum class Format { npy, pb };

Format format_of(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".npy") return Format::npy;
  if (extension == ".pb") return Format::pb;
  throw std::invalid_argument(path + ": a tensor file ends in .npy (NumPy) or .pb (ONNX TensorProto), not '" +
                              extension + "'");
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TensorFileError(path + ": cannot open the tensor file");
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw TensorFileError(path + ": cannot read the tensor file");
  return bytes;
}

// The .pb reader checks the TensorProto (types, dims against the values); what is left is its type
// name as one of the executor's element types.
Tensor tensor_from_pb(const std::string& path) {
  onnx_import::TensorFile file;
  try {
    file = onnx_import::read_tensor_file(path);
  } catch (const onnx_import::ModelError& e) {
    throw TensorFileError(e.what());
  }
  for (const ElementType type : kElementTypes) {
    if (onnx_import::element_type_name(type) == file.type) {
      Tensor out;
      out.type = type;
      out.shape = std::move(file.dims);
      out.bytes = std::move(file.bytes);
      return out;
    }
  }
  throw TensorFileError(path + ": field 'type': '" + file.type + "' is not one of uint8, int8, int32, float");
}

// Through PATH.tmp and a rename, so that the file is there whole or not at all.
void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = path + ".tmp";
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    written = out && out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) && out.flush();
  }
  std::error_code renamed;
  if (written) std::filesystem::rename(temporary, path, renamed);
  if (!written || renamed) {
    std::remove(temporary.c_str());
    throw TensorFileError(path + ": cannot write the tensor file" + (renamed ? ": " + renamed.message() : ""));
  }
}

}  // namespace

Tensor read_tensor(const std::string& path) {
  if (format_of(path) == Format::npy) return parse_npy(path, read_bytes(path));
  return tensor_from_pb(path);
}

void write_tensor(const std::string& path, const Tensor& tensor, const std::string& tensor_name) {
  const Format format = format_of(path);
  std::size_t expected = 0;
  try {
    expected = tensor_data_bytes(tensor.type, tensor.shape);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  if (expected != tensor.bytes.size()) {
    throw std::invalid_argument(path + ": a " + onnx_import::element_type_name(tensor.type) + " tensor of " +
                                std::to_string(tensor.shape.size()) + " dimension(s) needs " +
                                std::to_string(expected) + " bytes, it has " + std::to_string(tensor.bytes.size()));
  }
  if (format == Format::npy) {
    std::string bytes;
    try {
      bytes = npy_bytes(tensor);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ": " + e.what());
    }
    write_file_atomically(path, bytes);
    return;
  }
  onnx_import::TensorFile file;
  file.name = tensor_name;
  file.dims = tensor.shape;
  file.type = onnx_import::element_type_name(tensor.type);
  file.bytes = tensor.bytes;
  try {
    onnx_import::write_tensor_file(path, file);
  } catch (const onnx_import::ModelError& e) {
    throw TensorFileError(e.what());
  }
}

std::string tensor_file_name(const std::string& tensor_name, const std::string& extension) {
  std::string name = tensor_name.empty() ? "_" : tensor_name;
  for (char& c : name) {
    const bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    if (!safe) c = '_';
  }
  // "." and ".." name directories; with an extension they would not, but a caller may give none.
  if (name.find_first_not_of('.') == std::string::npos) name.replace(0, name.size(), name.size(), '_');
  return name + extension;
}

}  // namespace qtune::executor
