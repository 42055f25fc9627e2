// Tensor files (qtune/executor/tensor_files.h): .npy and .pb written and read back for every type,
// .npy files written by numpy itself read and written byte for byte as numpy writes them, the .pb
// files read by onnx's numpy_helper, every malformed file rejected with a message naming the file
// and the field, and a failed write leaving no file.
#include "qtune/executor/tensor_files.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/executor/npy_format.h"
#include "scratch_dir.h"

namespace {

using qtune::executor::ElementType;
using qtune::executor::parse_npy;
using qtune::executor::read_tensor;
using qtune::executor::Tensor;
using qtune::executor::TensorFileError;
using qtune::executor::write_tensor;

constexpr ElementType kTypes[] = {ElementType::u8, ElementType::s8, ElementType::s32, ElementType::f32};

std::size_t bytes_of(ElementType type) { return type == ElementType::s32 || type == ElementType::f32 ? 4 : 1; }

std::string type_text(ElementType type) { return qtune::onnx_import::element_type_name(type); }

// Values that tell every element and every byte apart: element i is i * 37 - 50 (floats: i * 0.25 - 3).
Tensor make_tensor(ElementType type, std::vector<std::int64_t> shape) {
  Tensor t;
  t.type = type;
  t.shape = std::move(shape);
  std::size_t elements = 1;
  for (const std::int64_t d : t.shape) elements *= static_cast<std::size_t>(d);
  t.bytes.resize(elements * bytes_of(type));
  for (std::size_t i = 0; i < elements; ++i) {
    const auto k = static_cast<std::int32_t>(i);
    switch (type) {
      case ElementType::u8: t.bytes[i] = static_cast<std::uint8_t>(k * 37 + 5); break;
      case ElementType::s8: t.bytes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(k * 37 - 50)); break;
      case ElementType::s32: {
        const std::int32_t v = k * 1000003 - 70000;
        std::memcpy(t.bytes.data() + 4 * i, &v, 4);
        break;
      }
      case ElementType::f32: {
        const float v = static_cast<float>(k) * 0.25f - 3.0f;
        std::memcpy(t.bytes.data() + 4 * i, &v, 4);
        break;
      }
    }
  }
  return t;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

// Runs a Python script (numpy, onnx) with the scratch directory as its first argument.
void run_python(const qtune::testing::ScratchDir& dir, const std::string& script) {
  const std::string path = dir.file("script.py");
  write_file(path, "import sys, os\nimport numpy as np\nd = sys.argv[1]\n" + script);
  const std::string command = std::string(QTUNE_PYTHON) + " " + path + " " + std::filesystem::path(path).parent_path().string();
  ASSERT_EQ(std::system(command.c_str()), 0) << "python3 with numpy (and onnx) failed: " << command;
}

std::string shape_name(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (const std::int64_t d : shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out.empty() ? "scalar" : out;
}

// The last two end numpy's header just before and just after a multiple of 64 bytes, where the
// padding depends on every space numpy writes.
const std::vector<std::vector<std::int64_t>> kShapes = {
    {}, {1}, {7}, {2, 3}, {1, 3, 4, 5}, {2, 1, 1, 3, 2}, {0}, {2, 0, 3},
    {2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10}, {2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10, 10}};

std::string python_shapes() {  // kShapes as a Python list of tuples
  std::string out = "[";
  for (const auto& shape : kShapes) {
    out += "(";
    for (const std::int64_t d : shape) out += std::to_string(d) + ",";
    out += "), ";
  }
  return out + "]";
}

// The empty shapes ({0}, {2, 0, 3}) for .npy only: onnx_import's TensorProto reader copies its
// values with memcpy from a null vector when there are none, which UBSan reports.
TEST(TensorFiles, NpyAndPbRoundTripEveryTypeAndShape) {
  qtune::testing::ScratchDir dir;
  for (const ElementType type : kTypes) {
    for (const auto& shape : kShapes) {
      const Tensor t = make_tensor(type, shape);
      const bool empty = !t.shape.empty() && t.bytes.empty();
      for (const std::string extension : {".npy", ".pb"}) {
        if (empty && extension == ".pb") continue;
        const std::string path = dir.file(type_text(type) + "_" + shape_name(shape) + extension);
        write_tensor(path, t, "tensor");
        const Tensor back = read_tensor(path);
        EXPECT_EQ(back.type, t.type) << path;
        EXPECT_EQ(back.shape, t.shape) << path;
        EXPECT_EQ(back.bytes, t.bytes) << path;
        EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << path;
      }
    }
  }
}

// numpy.save's files for the same tensors: qtune writes the same bytes, reads numpy's back, and the
// 0-d and the one-byte types included.
TEST(TensorFiles, NpyFilesAreNumpysByteForByte) {
  qtune::testing::ScratchDir dir;
  run_python(dir, "shapes = " + python_shapes() + R"(
def values(dtype, shape):
    n = int(np.prod(shape))
    k = np.arange(n, dtype=np.int64)
    if dtype == 'uint8': v = (k * 37 + 5) % 256
    elif dtype == 'int8': v = ((k * 37 - 50 + 128) % 256) - 128
    elif dtype == 'int32': v = k * 1000003 - 70000
    else: v = k.astype(np.float32) * np.float32(0.25) - np.float32(3)
    return v.astype(dtype).reshape(shape)
for dtype in ['uint8', 'int8', 'int32', 'float32']:
    for shape in shapes:
        name = dtype + '_' + ('x'.join(map(str, shape)) or 'scalar')
        np.save(os.path.join(d, 'numpy_' + name + '.npy'), values(dtype, shape))
)");
  for (const ElementType type : kTypes) {
    const std::string numpy_type = type == ElementType::f32 ? "float32" : type_text(type);
    for (const auto& shape : kShapes) {
      const std::string name = numpy_type + "_" + shape_name(shape);
      const std::string numpy_file = dir.file("numpy_" + name + ".npy");
      const Tensor expected = make_tensor(type, shape);
      const Tensor read = read_tensor(numpy_file);
      EXPECT_EQ(read.type, expected.type) << numpy_file;
      EXPECT_EQ(read.shape, expected.shape) << numpy_file;
      EXPECT_EQ(read.bytes, expected.bytes) << numpy_file;
      const std::string ours = dir.file("qtune_" + name + ".npy");
      write_tensor(ours, expected);
      EXPECT_EQ(file_text(ours), file_text(numpy_file)) << ours << " differs from numpy.save's " << numpy_file;
      EXPECT_EQ(file_text(ours).find('\n') % 64, 63u) << "the data start at a multiple of 64 bytes";
    }
  }
}

// Format versions 2.0 (4-byte header length) and 3.0 (UTF-8 header), the '<u1' / '<i1' spellings and
// extra whitespace in the header, as other writers produce them.
TEST(TensorFiles, ReadsOtherNpyVersionsAndSpellings) {
  qtune::testing::ScratchDir dir;
  run_python(dir, R"(
a = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
for version in [(1, 0), (2, 0), (3, 0)]:
    with open(os.path.join(d, 'v%d.npy' % version[0]), 'wb') as f:
        np.lib.format.write_array(f, a, version=version)
)");
  for (const std::string version : {"v1", "v2", "v3"}) {
    const Tensor t = read_tensor(dir.file(version + ".npy"));
    EXPECT_EQ(t.type, ElementType::s32) << version;
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2, 3, 4})) << version;
    ASSERT_EQ(t.bytes.size(), 96u) << version;
    std::int32_t last = 0;
    std::memcpy(&last, t.bytes.data() + 92, 4);
    EXPECT_EQ(last, 18) << version;
  }
  EXPECT_EQ(file_text(dir.file("v2.npy"))[6], '\x02') << "numpy wrote a version 2.0 header";

  const std::string header = "{ 'shape' : ( 2 ,3 , ) ,\n\"descr\":\"<i1\", 'fortran_order':False}";
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size());
  file += '\0';
  file += header + "abcdef";
  const Tensor t = parse_npy("spaced.npy", file);
  EXPECT_EQ(t.type, ElementType::s8);
  EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(std::string(t.bytes.begin(), t.bytes.end()), "abcdef");
}

TEST(TensorFiles, PbFilesAreOnnxs) {
  qtune::testing::ScratchDir dir;
  for (const ElementType type : kTypes) write_tensor(dir.file(type_text(type) + ".pb"), make_tensor(type, {2, 3}), "out:0");
  write_tensor(dir.file("scalar.pb"), make_tensor(ElementType::f32, {}), "scalar");
  // onnx's own reader: the name, the type and the values.
  run_python(dir, R"(
import onnx
from onnx import numpy_helper
k = np.arange(6, dtype=np.int64)
expected = {'uint8': (k * 37 + 5) % 256, 'int8': ((k * 37 - 50 + 128) % 256) - 128,
            'int32': k * 1000003 - 70000, 'float': k.astype(np.float32) * np.float32(0.25) - np.float32(3)}
for name, values in expected.items():
    t = onnx.load_tensor(os.path.join(d, name + '.pb'))
    a = numpy_helper.to_array(t)
    assert t.name == 'out:0', t.name
    assert a.dtype == np.dtype('float32' if name == 'float' else name), a.dtype
    assert a.shape == (2, 3), a.shape
    assert (a.reshape(-1) == values).all(), (name, a)
s = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, 'scalar.pb')))
assert s.shape == () and s == np.float32(-3), s
np.save(os.path.join(d, 'check.npy'), np.zeros(1))
)");
  EXPECT_TRUE(std::filesystem::exists(dir.file("check.npy"))) << "the Python checks ran to their end";
}

// The message of the TensorFileError `bytes` give as "bad.npy", or "" when they are read.
std::string npy_error(const std::string& bytes) {
  try {
    parse_npy("bad.npy", bytes);
  } catch (const TensorFileError& e) {
    return e.what();
  }
  return "";
}

// A version 1.0 file with this header and data.
std::string npy_file(const std::string& header, const std::string& data) {
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + data;
}

std::string header_of(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

struct Malformed {
  std::string what, bytes, field, problem;
};

TEST(TensorFiles, MalformedNpyNamesTheFileAndTheField) {
  const std::string good = npy_file(header_of("'<i4'", "False", "(2,)"), std::string(8, '\1'));
  ASSERT_EQ(npy_error(good), "") << "the base case is a valid file";
  const std::string huge = "(4294967296, 4294967296, 4294967296)";
  std::string many_dims = "(";
  for (int i = 0; i < 65; ++i) many_dims += "1, ";
  many_dims += ")";
  const std::vector<Malformed> cases = {
      {"empty", "", "magic", "not a NumPy .npy file"},
      {"bad magic", "\x93NUMPZ\x01\x00\x10\x00", "magic", "not a NumPy .npy file"},
      {"a pickle", "\x80\x04\x95", "magic", "not a NumPy .npy file"},
      {"no version", "\x93NUMPY\x01", "version", "ends before the format version"},
      {"version 4.0", std::string("\x93NUMPY\x04\x00\x10\x00", 10), "version", "format version 4.0 is not one of"},
      {"version 1.1", std::string("\x93NUMPY\x01\x01\x10\x00", 10), "version", "format version 1.1"},
      {"truncated length", std::string("\x93NUMPY\x01\x00\x10", 9), "header_len", "ends inside the header's length"},
      {"v2 truncated length", std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11), "header_len", "ends inside"},
      {"header past the end", good.substr(0, 20), "header_len", "runs past the end of the file"},
      {"v2 header of 4 GB", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14), "header_len", "runs past the end"},
      {"header a list", npy_file("[1, 2]\n", ""), "header", "not a Python dict literal"},
      {"header empty", npy_file("", ""), "header", "not a Python dict literal"},
      {"unclosed dict", npy_file("{'descr': '<i4'", ""), "header", "expected ',' or '}'"},
      {"unknown key", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (), 'x': 1}", "abcd"), "header",
       "unknown key 'x'"},
      {"key not a string", npy_file("{1: 2}", ""), "header", "expected a quoted string"},
      {"text after the dict", npy_file(header_of("'<i4'", "False", "()") + "x", "abcd"), "header", "text after the dict"},
      {"unterminated key", npy_file("{'descr", ""), "header", "without its closing quote"},
      {"missing descr", npy_file("{'fortran_order': False, 'shape': ()}", "a"), "descr", "missing from the header"},
      {"missing shape", npy_file("{'descr': '|u1', 'fortran_order': False}", "a"), "shape", "missing from the header"},
      {"missing fortran_order", npy_file("{'descr': '|u1', 'shape': ()}", "a"), "fortran_order", "missing"},
      {"descr twice", npy_file("{'descr': '|u1', 'descr': '|u1', 'fortran_order': False, 'shape': ()}", "a"), "descr",
       "given twice"},
      {"float64", npy_file(header_of("'<f8'", "False", "(2,)"), std::string(16, '\0')), "descr",
       "dtype '<f8' is not one of uint8, int8, int32, float32"},
      {"big-endian int32", npy_file(header_of("'>i4'", "False", "(2,)"), std::string(8, '\0')), "descr", "dtype '>i4'"},
      {"int64", npy_file(header_of("'<i8'", "False", "(1,)"), std::string(8, '\0')), "descr", "dtype '<i8'"},
      {"structured", npy_file(header_of("[('a', '<i4')]", "False", "(1,)"), std::string(4, '\0')), "descr",
       "structured dtype"},
      {"descr not a string", npy_file(header_of("4", "False", "(1,)"), std::string(4, '\0')), "descr",
       "expected a quoted string"},
      {"escapes", npy_file(header_of("'<i\\x34'", "False", "(1,)"), std::string(4, '\0')), "descr", "escape sequences"},
      {"fortran order", npy_file(header_of("'<i4'", "True", "(2, 1)"), std::string(8, '\0')), "fortran_order",
       "True (column-major data) is not read"},
      {"fortran_order 0", npy_file(header_of("'<i4'", "0", "(2,)"), std::string(8, '\0')), "fortran_order",
       "expected True or False"},
      {"fortran_order Truely", npy_file(header_of("'<i4'", "Truely", "(2,)"), std::string(8, '\0')), "fortran_order",
       "expected True or False"},
      {"shape a list", npy_file(header_of("'<i4'", "False", "[2]"), std::string(8, '\0')), "shape", "expected a tuple"},
      {"shape an integer", npy_file(header_of("'<i4'", "False", "(2)"), std::string(8, '\0')), "shape", "not a tuple"},
      {"negative dimension", npy_file(header_of("'<i4'", "False", "(-2,)"), ""), "shape", "negative dimension"},
      {"dimension 3L", npy_file(header_of("'<i4'", "False", "(3L,)"), std::string(12, '\0')), "shape",
       "expected a dimension"},
      {"dimension a float", npy_file(header_of("'<i4'", "False", "(2.0,)"), std::string(8, '\0')), "shape",
       "expected ',' or ')'"},
      {"dimension past 2^63", npy_file(header_of("'|u1'", "False", "(9223372036854775808,)"), ""), "shape",
       "past 2^63"},
      {"65 dimensions", npy_file(header_of("'|u1'", "False", many_dims), "a"), "shape", "more than 64 dimensions"},
      {"unclosed shape", npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2, ", ""), "shape",
       "expected a dimension"},
      {"elements overflow", npy_file(header_of("'<i4'", "False", huge), std::string(8, '\0')), "data",
       "needs more than the 8 bytes"},
      {"dims past the data", npy_file(header_of("'<f4'", "False", "(1000000000, 1000000000)"), ""), "data",
       "needs more than the 0 bytes"},
      {"data short", npy_file(header_of("'<i4'", "False", "(2, 3)"), std::string(23, '\0')), "data",
       "needs more than the 23 bytes"},
      {"data long", npy_file(header_of("'<i4'", "False", "(2, 3)"), std::string(25, '\0')), "data",
       "needs 24 bytes of data, the file holds 25"},
      {"data of a partial element", npy_file(header_of("'<f4'", "False", "()"), std::string(5, '\0')), "data",
       "needs 4 bytes of data, the file holds 5"},
      {"no data", npy_file(header_of("'|u1'", "False", "()"), ""), "data", "needs 1 bytes of data, the file holds 0"},
  };
  for (const Malformed& c : cases) {
    const std::string message = npy_error(c.bytes);
    const std::string prefix = "bad.npy: field '" + c.field + "': ";
    EXPECT_EQ(message.substr(0, prefix.size()), prefix) << c.what << ": " << message;
    EXPECT_NE(message.find(c.problem), std::string::npos) << c.what << ": " << message;
  }
  // Hostile bytes are shown escaped, and cut short.
  const std::string shown = npy_error(npy_file(header_of("'\x01" + std::string(100, 'z') + "'", "False", "()"), ""));
  EXPECT_NE(shown.find("dtype '\\x01zzz"), std::string::npos) << shown;
  EXPECT_NE(shown.find("z...'"), std::string::npos) << shown;
  EXPECT_LT(shown.size(), 160u) << shown;
}

TEST(TensorFiles, ReadTensorNamesThePathOfAMalformedFile) {
  qtune::testing::ScratchDir dir;
  const std::string npy = dir.file("x.npy");
  write_file(npy, npy_file(header_of("'<f8'", "False", "(2,)"), std::string(16, '\0')));
  try {
    read_tensor(npy);
    FAIL() << "a float64 file was read";
  } catch (const TensorFileError& e) {
    EXPECT_EQ(std::string(e.what()), npy + ": field 'descr': dtype '<f8' is not one of uint8, int8, int32, float32");
  }
  EXPECT_THROW(read_tensor(dir.file("missing.npy")), TensorFileError);
  EXPECT_THROW(read_tensor(dir.file("missing.pb")), TensorFileError);
  EXPECT_THROW(read_tensor(dir.file("x.txt")), std::invalid_argument);

  // TensorProto by hand: dims (field 1), data_type (2), raw_data (9). int64 is not one of the four;
  // raw_data of 5 bytes does not hold the 2 int32 values of dims [2].
  const std::string int64_pb = dir.file("int64.pb");
  write_file(int64_pb, std::string("\x08\x02\x10\x07\x4a\x10", 6) + std::string(16, '\0'));
  const std::string short_pb = dir.file("short.pb");
  write_file(short_pb, std::string("\x08\x02\x10\x06\x4a\x05", 6) + std::string(5, '\0'));
  const std::string garbage_pb = dir.file("garbage.pb");
  write_file(garbage_pb, "\xff\xff\xff\xff not a protobuf");
  for (const auto& [path, problem] : std::vector<std::pair<std::string, std::string>>{
           {int64_pb, "field 'type': 'int64' is not one of uint8, int8, int32, float"},
           {short_pb, "field 'values': int32 tensor '' of dims [2] needs 2 values, it holds 5 bytes"},
           {garbage_pb, "not a serialized ONNX TensorProto"}}) {
    try {
      read_tensor(path);
      ADD_FAILURE() << path << " was read";
    } catch (const TensorFileError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;
      EXPECT_NE(message.find(problem), std::string::npos) << message;
    }
  }
}

TEST(TensorFiles, AFailedWriteLeavesNoFile) {
  qtune::testing::ScratchDir dir;
  const Tensor t = make_tensor(ElementType::u8, {2, 2});
  for (const std::string extension : {".npy", ".pb"}) {
    // The target is a directory: the temporary file is written, the rename fails.
    const std::string occupied = dir.file("occupied" + extension);
    std::filesystem::create_directory(occupied);
    EXPECT_THROW(write_tensor(occupied, t), TensorFileError) << extension;
    EXPECT_TRUE(std::filesystem::is_directory(occupied)) << extension;
    EXPECT_FALSE(std::filesystem::exists(occupied + ".tmp")) << extension;
    // No such directory: nothing can be opened.
    const std::string nowhere = dir.file("missing/t" + extension);
    try {
      write_tensor(nowhere, t);
      ADD_FAILURE() << nowhere << " was written";
    } catch (const TensorFileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(nowhere + ": cannot write", 0), 0u) << e.what();
    }
    // Bytes that do not match the shape: refused before anything is opened.
    Tensor short_tensor = t;
    short_tensor.bytes.pop_back();
    const std::string refused = dir.file("refused" + extension);
    EXPECT_THROW(write_tensor(refused, short_tensor), std::invalid_argument) << extension;
    Tensor negative = t;
    negative.shape = {-2, -2};
    EXPECT_THROW(write_tensor(refused, negative), std::invalid_argument) << extension;
    EXPECT_FALSE(std::filesystem::exists(refused)) << extension;
    EXPECT_FALSE(std::filesystem::exists(refused + ".tmp")) << extension;
  }
  EXPECT_THROW(write_tensor(dir.file("t.txt"), t), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.txt")));
  // An existing file is replaced whole.
  const std::string path = dir.file("replaced.npy");
  write_tensor(path, make_tensor(ElementType::f32, {100}));
  write_tensor(path, t);
  EXPECT_EQ(read_tensor(path).bytes, t.bytes);
}

TEST(TensorFiles, FileNamesOfTensorNames) {
  using qtune::executor::tensor_file_name;
  EXPECT_EQ(tensor_file_name("logits", ".npy"), "logits.npy");
  EXPECT_EQ(tensor_file_name("model/conv_1:0", ".pb"), "model_conv_1_0.pb");
  EXPECT_EQ(tensor_file_name("a.b-c_D9", ".npy"), "a.b-c_D9.npy");
  EXPECT_EQ(tensor_file_name("../etc/passwd", ".npy"), ".._etc_passwd.npy");
  EXPECT_EQ(tensor_file_name("sp ace\xc3\xa9", ".npy"), "sp_ace__.npy");
  EXPECT_EQ(tensor_file_name("", ".npy"), "_.npy");
  EXPECT_EQ(tensor_file_name("..", ""), "__");
}

}  // namespace
