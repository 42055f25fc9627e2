#include "qtune/records/timestamp.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace qtune::records {

namespace {

std::string format(int year, int month, int day, int hour, int minute, int second, long micros) {
  char buffer[96];  // room for any int values, so the compiler can prove no truncation
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", year, month, day, hour, minute, second,
                micros);
  return buffer;
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Reads exactly `width` digits at text[pos].
bool digits(const std::string& text, std::size_t pos, std::size_t width, int& value) {
  if (pos + width > text.size()) return false;
  value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto micros_total = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros_total / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return format(utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long>(micros_total % 1000000));
}

std::optional<std::string> canonical_timestamp(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z
  int year, month, day, hour, minute, second;
  if (!digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' || !digits(text, 5, 2, month) ||
      text[7] != '-' || !digits(text, 8, 2, day) || text[10] != 'T' || !digits(text, 11, 2, hour) ||
      text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second))
    return std::nullopt;
  std::size_t pos = 19;
  long micros = 0;
  if (text[pos] == '.') {
    ++pos;
    std::size_t count = 0;
    long scale = 100000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++count > 9) return std::nullopt;
      if (count <= 6) {
        micros += (text[pos] - '0') * scale;
        scale /= 10;
      }
      ++pos;
    }
    if (count == 0) return std::nullopt;
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 60)
    return std::nullopt;
  return format(year, month, day, hour, minute, second, micros);
}

}  // namespace qtune::records
