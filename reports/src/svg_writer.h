// Writing SVG markup: escaped text, numbers with fixed precision, and elements that carry a
// <title> tooltip. Every element opened is closed by the same call, so output is well formed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qtune::reports::svg {

// Escapes &, <, >, " and ' for text and attribute values.
std::string xml_escape(std::string_view text);

// At most `max_chars` characters (UTF-8 aware), with "…" at the end when shortened.
std::string shorten(const std::string& text, std::size_t max_chars);

// A coordinate or length with two decimals at most ("12", "12.5", "12.25").
std::string num(double value);

// The palette: colour-blind safe (Okabe-Ito), distinguishable in greyscale by position.
const std::string& palette_color(std::size_t index);

class SvgWriter {
 public:
  // Opens <svg> with explicit pixel size (so a wide chart scrolls instead of shrinking) and an
  // accessible name.
  SvgWriter(double width, double height, const std::string& accessible_name);

  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip = "",
            const std::string& extra_attributes = "");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            const std::string& extra_attributes = "");
  void path(const std::string& d, const std::string& stroke, double stroke_width, const std::string& tooltip = "");
  void circle(double cx, double cy, double r, const std::string& fill, const std::string& tooltip = "");
  // anchor: "start", "middle" or "end"; `rotate` in degrees around (x, y).
  void text(double x, double y, const std::string& content, const std::string& anchor = "start", double size = 12,
            const std::string& tooltip = "", double rotate = 0, const std::string& extra_attributes = "");

  std::string finish();

 private:
  std::string out_;
};

}  // namespace qtune::reports::svg
