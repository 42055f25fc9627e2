// Parsing of JSON input with a nesting limit and readable errors.
//
// nlohmann-json parses any depth (its parser keeps an explicit stack) but serializes recursively:
// a value nested ~60,000 levels deep parses fine and then overflows the stack the first time it is
// dumped (into an error message or a database row). Input deeper than kMaxJsonDepth is refused
// while it is parsed, so no such value ever exists in qtune. Real logs and workload files nest
// at most 4 levels.
#pragma once

#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qtune::json_input {

inline constexpr int kMaxJsonDepth = 256;

// Every problem of the input, already without nlohmann's "[json.exception.parse_error.101] " prefix.
struct JsonInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

// "[json.exception.out_of_range.406] number overflow parsing '1e400'" -> "number overflow parsing '1e400'"
inline std::string without_exception_prefix(const std::string& text) {
  const auto close = text.find("] ");
  if (text.rfind("[json.exception", 0) == 0 && close != std::string::npos) return text.substr(close + 2);
  return text;
}

template <typename Input>
nlohmann::json parse_bounded_input(Input&& input) {
  struct TooDeep {};
  const nlohmann::json::parser_callback_t limit_depth = [](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json&) {
    // depth counts the enclosing containers of the value being started.
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(std::forward<Input>(input), limit_depth);
  } catch (const TooDeep&) {
    throw JsonInputError("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const nlohmann::json::exception& e) {
    // parse_error (syntax, invalid UTF-8) and out_of_range (a number beyond double, such as 1e400).
    throw JsonInputError(without_exception_prefix(e.what()));
  }
}

}  // namespace detail

// The JSON value of `text` (one log line, a stored settings column), or JsonInputError.
inline nlohmann::json parse_bounded(std::string_view text) { return detail::parse_bounded_input(text); }

// The JSON document of a whole stream (a workload file), or JsonInputError.
inline nlohmann::json parse_bounded(std::istream& in) { return detail::parse_bounded_input(in); }

}  // namespace qtune::json_input
