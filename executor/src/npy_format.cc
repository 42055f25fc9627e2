// NumPy's .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a minor version
// byte, the header's length (2 bytes little-endian in version 1.0, 4 in 2.0 and 3.0), the header (a
// Python dict literal such as "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" padded
// with spaces and ended by a newline), then the data in C order. Version 3.0 only allows UTF-8 in
// the header, which changes nothing for the dtypes read here.
#include "qtune/executor/npy_format.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace qtune::executor {

// The data are the tensors' own bytes: the format's '<' (little-endian) must be the machine's order.
static_assert(std::endian::native == std::endian::little, ".npy data are read and written as the machine's bytes");

namespace {

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr std::size_t kPrefixBytes = 8;  // the magic and the two version bytes
constexpr std::size_t kMaxDims = 64;     // NumPy 2's limit (NumPy 1's is 32)
constexpr std::size_t kAlignment = 64;   // numpy.lib.format.ARRAY_ALIGN: where the data starts
// numpy.save leaves room for the first axis to grow to this many digits (GROWTH_AXIS_MAX_DIGITS),
// so that data can be appended in place; written the same way, the files equal numpy's byte for byte.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
constexpr std::size_t kShownChars = 40;  // of hostile text quoted in a message

struct Dtype {
  std::string_view descr;
  ElementType type;
  std::size_t bytes;
};

// numpy.save's spelling of each type first (what the writer uses), then the other spelling of the
// one-byte types ('<' and '|' mean the same for them).
constexpr Dtype kDtypes[] = {{"|u1", ElementType::u8, 1},  {"|i1", ElementType::s8, 1},
                             {"<i4", ElementType::s32, 4}, {"<f4", ElementType::f32, 4},
                             {"<u1", ElementType::u8, 1},  {"<i1", ElementType::s8, 1}};
constexpr std::string_view kTypeNames = "uint8, int8, int32, float32";

const Dtype& dtype_of(ElementType type) {
  for (const Dtype& dtype : kDtypes) {
    if (dtype.type == type) return dtype;
  }
  throw std::invalid_argument("element type " + std::to_string(static_cast<int>(type)) + " has no .npy dtype");
}

// Text from the file as a message shows it: printable ASCII as it is, any other byte as \xNN, cut
// after kShownChars characters.
std::string shown(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShownChars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  if (text.size() > kShownChars) out += "...";
  return out;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {  // Python's repr of the tuple
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

class NpyReader {
 public:
  NpyReader(const std::string& name, std::string_view bytes) : name_(name), bytes_(bytes) {}

  Tensor read() {
    const std::string_view header = header_text();
    pos_ = 0;
    header_ = header;
    parse_dict();
    if (!descr_) fail("descr", "missing from the header");
    if (!fortran_order_) fail("fortran_order", "missing from the header");
    if (!shape_) fail("shape", "missing from the header");
    if (*fortran_order_) {
      fail("fortran_order", "True (column-major data) is not read; save a C-ordered array (numpy.ascontiguousarray)");
    }
    return tensor(bytes_.substr(header_end_));
  }

 private:
  [[noreturn]] void fail(std::string_view field, const std::string& problem) const {
    throw TensorFileError(name_ + ": field '" + std::string(field) + "': " + problem);
  }

  // The magic, the version and the header's length checked; returns the header's bytes.
  std::string_view header_text() {
    if (bytes_.substr(0, kMagic.size()) != kMagic) {
      fail("magic", "not a NumPy .npy file (it does not start with \\x93NUMPY but with '" +
                        shown(bytes_.substr(0, kMagic.size())) + "')");
    }
    if (bytes_.size() < kPrefixBytes) fail("version", "the file ends before the format version");
    const unsigned major = static_cast<unsigned char>(bytes_[6]), minor = static_cast<unsigned char>(bytes_[7]);
    if (major < 1 || major > 3 || minor != 0) {
      fail("version", "format version " + std::to_string(major) + "." + std::to_string(minor) +
                          " is not one of 1.0, 2.0, 3.0");
    }
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    if (bytes_.size() < kPrefixBytes + length_bytes) fail("header_len", "the file ends inside the header's length");
    std::size_t length = 0;
    for (std::size_t i = length_bytes; i-- > 0;) length = length << 8 | static_cast<unsigned char>(bytes_[kPrefixBytes + i]);
    const std::size_t start = kPrefixBytes + length_bytes;
    if (length > bytes_.size() - start) {
      fail("header_len", "a header of " + std::to_string(length) + " bytes runs past the end of the file (" +
                             std::to_string(bytes_.size() - start) + " bytes after the header's length)");
    }
    header_end_ = start + length;
    return bytes_.substr(start, length);
  }

  // The dict literal, read with the little of Python's grammar that numpy writes: quoted keys, a
  // quoted string, a bool and a tuple of integers, any whitespace between them.
  void parse_dict() {
    skip_space();
    if (!next_is('{')) fail("header", "not a Python dict literal: it starts with '" + shown(rest()) + "'");
    ++pos_;
    while (true) {
      skip_space();
      if (next_is('}')) break;
      const std::string_view key = string_literal("header");
      skip_space();
      if (!next_is(':')) fail("header", "expected ':' after the key '" + shown(key) + "', got '" + shown(rest()) + "'");
      ++pos_;
      skip_space();
      if (key == "descr") {
        if (descr_) fail("descr", "given twice");
        descr_ = &descr_value();
      } else if (key == "fortran_order") {
        if (fortran_order_) fail("fortran_order", "given twice");
        fortran_order_ = bool_value();
      } else if (key == "shape") {
        if (shape_) fail("shape", "given twice");
        shape_ = shape_value();
      } else {
        fail("header", "unknown key '" + shown(key) + "' (a .npy header holds descr, fortran_order and shape)");
      }
      skip_space();
      if (next_is(',')) {
        ++pos_;
        continue;
      }
      if (!next_is('}')) fail("header", "expected ',' or '}' after a value, got '" + shown(rest()) + "'");
      break;
    }
    ++pos_;  // the '}'
    skip_space();
    if (pos_ != header_.size()) fail("header", "text after the dict: '" + shown(rest()) + "'");
  }

  const Dtype& descr_value() {
    if (next_is('[')) fail("descr", "a structured dtype (a list of fields) is not one of " + std::string(kTypeNames));
    const std::string_view descr = string_literal("descr");
    for (const Dtype& dtype : kDtypes) {
      if (dtype.descr == descr) return dtype;
    }
    fail("descr", "dtype '" + shown(descr) + "' is not one of " + std::string(kTypeNames));
  }

  bool bool_value() {
    for (const bool value : {true, false}) {
      const std::string_view word = value ? "True" : "False";
      if (rest().substr(0, word.size()) == word && !identifier_char_at(pos_ + word.size())) {
        pos_ += word.size();
        return value;
      }
    }
    fail("fortran_order", "expected True or False, got '" + shown(rest()) + "'");
  }

  // "()", "(3,)", "(2, 3)" or "(2, 3,)".
  std::vector<std::int64_t> shape_value() {
    if (!next_is('(')) fail("shape", "expected a tuple of integers such as (2, 3), got '" + shown(rest()) + "'");
    ++pos_;
    std::vector<std::int64_t> dims;
    skip_space();
    if (next_is(')')) {
      ++pos_;
      return dims;
    }
    while (true) {
      if (dims.size() == kMaxDims) fail("shape", "more than " + std::to_string(kMaxDims) + " dimensions");
      dims.push_back(dimension());
      skip_space();
      if (next_is(',')) {
        ++pos_;
        skip_space();
        if (next_is(')')) break;
        continue;
      }
      if (!next_is(')')) fail("shape", "expected ',' or ')' after a dimension, got '" + shown(rest()) + "'");
      if (dims.size() == 1) fail("shape", "(" + std::to_string(dims[0]) + ") is an integer, not a tuple: a 1-d shape is (N,)");
      break;
    }
    ++pos_;  // the ')'
    return dims;
  }

  std::int64_t dimension() {
    if (next_is('-')) fail("shape", "a negative dimension");
    if (!digit_at(pos_)) fail("shape", "expected a dimension, got '" + shown(rest()) + "'");
    std::int64_t value = 0;
    for (; digit_at(pos_); ++pos_) {
      const int digit = header_[pos_] - '0';
      if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("shape", "a dimension past 2^63");
      value = value * 10 + digit;
    }
    if (identifier_char_at(pos_)) fail("shape", "expected a dimension, got '" + shown(rest()) + "'");  // 3L, 0x10
    return value;
  }

  // A string in single or double quotes, without escapes (numpy's keys and dtypes have none).
  std::string_view string_literal(std::string_view field) {
    if (!next_is('\'') && !next_is('"')) fail(field, "expected a quoted string, got '" + shown(rest()) + "'");
    const char quote = header_[pos_];
    const std::size_t start = pos_ + 1;
    const std::size_t end = header_.find(quote, start);
    if (end == std::string_view::npos) fail(field, "a string without its closing quote: '" + shown(rest()) + "'");
    const std::string_view text = header_.substr(start, end - start);
    if (text.find('\\') != std::string_view::npos) fail(field, "escape sequences are not read: '" + shown(text) + "'");
    pos_ = end + 1;
    return text;
  }

  // The data, checked against the shape before anything is allocated.
  Tensor tensor(std::string_view data) const {
    const Dtype& dtype = *descr_;
    const std::vector<std::int64_t>& shape = *shape_;
    const std::size_t capacity = data.size() / dtype.bytes;  // elements the data can hold
    bool empty = false;
    for (const std::int64_t d : shape) empty = empty || d == 0;
    std::size_t elements = empty ? 0 : 1;
    for (const std::int64_t d : shape) {
      if (empty) break;
      if (static_cast<std::uint64_t>(d) > capacity / elements) {
        fail("data", "shape " + shape_text(shape) + " of " + std::string(dtype.descr) + " needs more than the " +
                         std::to_string(data.size()) + " bytes of data the file holds");
      }
      elements *= static_cast<std::size_t>(d);
    }
    if (elements * dtype.bytes != data.size()) {
      fail("data", "shape " + shape_text(shape) + " of " + std::string(dtype.descr) + " needs " +
                       std::to_string(elements * dtype.bytes) + " bytes of data, the file holds " +
                       std::to_string(data.size()));
    }
    Tensor out;
    out.type = dtype.type;
    out.shape = shape;
    out.bytes.assign(data.begin(), data.end());
    return out;
  }

  void skip_space() {
    while (pos_ < header_.size() && (header_[pos_] == ' ' || header_[pos_] == '\t' || header_[pos_] == '\n' ||
                                     header_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool next_is(char c) const { return pos_ < header_.size() && header_[pos_] == c; }
  bool digit_at(std::size_t i) const { return i < header_.size() && header_[i] >= '0' && header_[i] <= '9'; }
  bool identifier_char_at(std::size_t i) const {
    if (i >= header_.size()) return false;
    const char c = header_[i];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  std::string_view rest() const { return header_.substr(pos_); }

  const std::string& name_;
  std::string_view bytes_;
  std::string_view header_;
  std::size_t header_end_ = 0;  // where the data start in bytes_
  std::size_t pos_ = 0;         // in header_
  const Dtype* descr_ = nullptr;
  std::optional<bool> fortran_order_;
  std::optional<std::vector<std::int64_t>> shape_;
};

}  // namespace

std::size_t tensor_data_bytes(ElementType type, const std::vector<std::int64_t>& shape) {
  const std::size_t element = dtype_of(type).bytes;
  bool empty = false;
  for (const std::int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("shape " + shape_text(shape) + " has a negative dimension");
    empty = empty || d == 0;
  }
  if (empty) return 0;
  const std::size_t limit = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()) / element;
  std::size_t elements = 1;
  for (const std::int64_t d : shape) {
    if (static_cast<std::uint64_t>(d) > limit / elements) {
      throw std::invalid_argument("shape " + shape_text(shape) + " has more than 2^63 bytes");
    }
    elements *= static_cast<std::size_t>(d);
  }
  return elements * element;
}

Tensor parse_npy(const std::string& name, std::string_view bytes) { return NpyReader(name, bytes).read(); }

std::string npy_bytes(const Tensor& tensor) {
  const Dtype& dtype = dtype_of(tensor.type);
  const std::size_t expected = tensor_data_bytes(tensor.type, tensor.shape);
  if (expected != tensor.bytes.size()) {
    throw std::invalid_argument("a tensor of shape " + shape_text(tensor.shape) + " and dtype " +
                                std::string(dtype.descr) + " needs " + std::to_string(expected) + " bytes, it has " +
                                std::to_string(tensor.bytes.size()));
  }
  // Bounds the header well inside version 1.0's 65535 bytes, and the reader takes no more.
  if (tensor.shape.size() > kMaxDims) {
    throw std::invalid_argument("a tensor of " + std::to_string(tensor.shape.size()) + " dimensions (.npy holds up to " +
                                std::to_string(kMaxDims) + ")");
  }
  std::string header =
      "{'descr': '" + std::string(dtype.descr) + "', 'fortran_order': False, 'shape': " + shape_text(tensor.shape) + ", }";
  if (!tensor.shape.empty()) header.append(kGrowthAxisMaxDigits - std::to_string(tensor.shape[0]).size(), ' ');
  // numpy's _wrap_header: spaces, then a newline ending the header at a multiple of kAlignment.
  const std::size_t length_bytes = 2;
  const std::size_t padding = kAlignment - (kPrefixBytes + length_bytes + header.size() + 1) % kAlignment;
  header.append(padding, ' ');
  header += '\n';

  std::string out(kMagic);
  out += '\x01';  // version 1.0
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.bytes.data()), tensor.bytes.size());
  return out;
}

}  // namespace qtune::executor
