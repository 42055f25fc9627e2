// The .npy reader (qtune infer --input): any bytes give a tensor or a TensorFileError naming the
// file and the field; a tensor it accepts holds exactly the bytes of its type and shape, and
// written again (as numpy.save writes it) it reads back as the same tensor.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "qtune/executor/npy_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  qtune::executor::Tensor tensor;
  try {
    tensor = qtune::executor::parse_npy("fuzz.npy", bytes);
  } catch (const qtune::executor::TensorFileError& e) {
    const std::string message = e.what();
    qtune::fuzz::require(message.rfind("fuzz.npy: field '", 0) == 0, "errors name the file and the field: " + message);
    return 0;
  }
  qtune::fuzz::require(qtune::executor::tensor_data_bytes(tensor.type, tensor.shape) == tensor.bytes.size(),
                       "an accepted tensor holds its shape's bytes");
  const std::string written = qtune::executor::npy_bytes(tensor);
  qtune::fuzz::require(written.size() % 64 == tensor.bytes.size() % 64, "the written data start at a multiple of 64");
  const qtune::executor::Tensor again = qtune::executor::parse_npy("again.npy", written);
  qtune::fuzz::require(again.type == tensor.type && again.shape == tensor.shape && again.bytes == tensor.bytes,
                       "an accepted tensor written again reads back the same");
  return 0;
}
