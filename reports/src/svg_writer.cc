#include "svg_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace qtune::reports::svg {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string shorten(const std::string& text, std::size_t max_chars) {
  // Count code points, not bytes, so a label never ends inside a multi-byte character.
  std::size_t chars = 0, cut = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == (max_chars > 0 ? max_chars - 1 : 0)) cut = i;
    ++chars;
  }
  if (chars <= max_chars) return text;
  return text.substr(0, cut) + "\u2026";
}

std::string num(double value) {
  if (!std::isfinite(value)) value = 0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string s = buffer;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") return std::string(1, '0');
  return s;
}

const std::string& palette_color(std::size_t index) {
  static const std::array<std::string, 7> kColors = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                     "#56B4E9", "#D55E00", "#7F7F7F"};
  return kColors[index % kColors.size()];
}

namespace {

std::string title_element(const std::string& tooltip) {
  return tooltip.empty() ? std::string() : "<title>" + xml_escape(tooltip) + "</title>";
}

// An element with an optional tooltip: self-closing without one.
std::string element(const std::string& name, const std::string& attributes, const std::string& tooltip) {
  if (tooltip.empty()) return "<" + name + " " + attributes + "/>";
  return "<" + name + " " + attributes + ">" + title_element(tooltip) + "</" + name + ">";
}

}  // namespace

SvgWriter::SvgWriter(double width, double height, const std::string& accessible_name) {
  out_ = "<svg width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
         num(height) + "\" role=\"img\" aria-label=\"" + xml_escape(accessible_name) +
         "\" font-family=\"sans-serif\" class=\"chart\">";
  out_ += "<title>" + xml_escape(accessible_name) + "</title>";
  out_ += "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>";
}

void SvgWriter::rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip,
                     const std::string& extra_attributes) {
  std::string attributes = "x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) +
                           "\" height=\"" + num(std::max(0.0, h)) + "\" fill=\"" + xml_escape(fill) + "\"";
  if (!extra_attributes.empty()) attributes += " " + extra_attributes;
  out_ += element("rect", attributes, tooltip);
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width,
                     const std::string& extra_attributes) {
  std::string attributes = "x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
                           "\" stroke=\"" + xml_escape(stroke) + "\" stroke-width=\"" + num(stroke_width) + "\"";
  if (!extra_attributes.empty()) attributes += " " + extra_attributes;
  out_ += element("line", attributes, "");
}

void SvgWriter::path(const std::string& d, const std::string& stroke, double stroke_width, const std::string& tooltip) {
  out_ += element("path",
                  "d=\"" + d + "\" fill=\"none\" stroke=\"" + xml_escape(stroke) + "\" stroke-width=\"" +
                      num(stroke_width) + "\" stroke-linejoin=\"round\"",
                  tooltip);
}

void SvgWriter::circle(double cx, double cy, double r, const std::string& fill, const std::string& tooltip) {
  out_ += element("circle", "cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" +
                                xml_escape(fill) + "\"",
                  tooltip);
}

void SvgWriter::text(double x, double y, const std::string& content, const std::string& anchor, double size,
                     const std::string& tooltip, double rotate, const std::string& extra_attributes) {
  std::string attributes = "x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) +
                           "\" text-anchor=\"" + anchor + "\"";
  if (rotate != 0) attributes += " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"";
  if (!extra_attributes.empty()) attributes += " " + extra_attributes;
  out_ += "<text " + attributes + ">" + title_element(tooltip) + xml_escape(content) + "</text>";
}

std::string SvgWriter::finish() {
  out_ += "</svg>";
  return std::move(out_);
}

}  // namespace qtune::reports::svg
