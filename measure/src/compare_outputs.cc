#include <cstring>
#include <sstream>

#include "qtune/measure/candidate.h"

namespace qtune {
namespace {

std::int64_t element(const void* data, std::size_t i, DType type) {
  switch (type) {
    case DType::u8: return static_cast<const std::uint8_t*>(data)[i];
    case DType::s8: return static_cast<const std::int8_t*>(data)[i];
    case DType::s32: {
      std::int32_t v;
      std::memcpy(&v, static_cast<const char*>(data) + 4 * i, 4);
      return v;
    }
  }
  return 0;
}

}  // namespace

std::string compare_outputs(const void* got, const void* expected, std::size_t count, DType type,
                            std::size_t columns) {
  const std::size_t size = type == DType::s32 ? 4 : 1;
  if (std::memcmp(got, expected, count * size) == 0) return "";
  std::size_t first = count, differing = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (element(got, i, type) != element(expected, i, type)) {
      if (first == count) first = i;
      ++differing;
    }
  }
  std::ostringstream msg;
  if (columns == 0) columns = 1;
  msg << "first mismatch at index " << first << " (row " << first / columns << ", column " << first % columns
      << "): got " << element(got, first, type) << ", expected " << element(expected, first, type) << "; "
      << differing << " of " << count << " " << to_string(type) << " elements differ";
  return msg.str();
}

}  // namespace qtune
