#include "qtune/search_space/key_text.h"

#include <cstdio>

namespace qtune {
namespace {

bool printable_ascii(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

std::string hex_byte(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "%02x", c);
  return text;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (printable_ascii(c)) {
      out += ch;
    } else {
      out += "\\x" + hex_byte(c);
    }
  }
  return out;
}

std::string key_text_problem(std::string_view what, std::string_view key) {
  for (std::size_t i = 0; i < key.size(); ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (!printable_ascii(c)) {
      return std::string(what) + " '" + printable(key) + "': byte 0x" + hex_byte(c) + " at offset " +
             std::to_string(i) + " is not printable ASCII (keys are ASCII text)";
    }
  }
  return {};
}

}  // namespace qtune
