// Checks of generated markup for the report tests: tags balanced (XML-style, with HTML's void
// elements and raw-text elements allowed), and counting occurrences.
#pragma once

#include <string>
#include <vector>

namespace qtune::reports::testing {

// "" when every element opened is closed in order, else what is wrong and where.
inline std::string unbalanced_tags(const std::string& markup) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while ((i = markup.find('<', i)) != std::string::npos) {
    if (markup.compare(i, 4, "<!--") == 0) {
      i = markup.find("-->", i);
      if (i == std::string::npos) return "unterminated comment";
      continue;
    }
    if (markup.compare(i, 2, "<!") == 0) {  // <!DOCTYPE html>
      i = markup.find('>', i);
      continue;
    }
    const std::size_t end = markup.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = markup.substr(i + 1, end - i - 1);
    i = end + 1;
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self_closing = !tag.empty() && tag.back() == '/';
    const std::size_t name_start = closing ? 1 : 0;
    const std::size_t name_end = tag.find_first_of(" \n\t/", name_start);
    const std::string name = tag.substr(name_start, name_end == std::string::npos ? std::string::npos : name_end - name_start);
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + "> at " +
               std::to_string(i);
      open.pop_back();
      continue;
    }
    if (self_closing || name == "meta") continue;
    if (name == "script" || name == "style") {  // raw text: skip to the closing tag
      const std::size_t close = markup.find("</" + name + ">", i);
      if (close == std::string::npos) return "unclosed <" + name + ">";
      i = close + name.size() + 3;
      continue;
    }
    open.push_back(name);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return "";
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t i = text.find(needle); i != std::string::npos; i = text.find(needle, i + needle.size())) ++n;
  return n;
}

// Every "<svg ...>...</svg>" of a page.
inline std::vector<std::string> svg_elements(const std::string& page) {
  std::vector<std::string> out;
  for (std::size_t i = page.find("<svg"); i != std::string::npos; i = page.find("<svg", i + 1)) {
    const std::size_t end = page.find("</svg>", i);
    if (end == std::string::npos) break;
    out.push_back(page.substr(i, end + 6 - i));
  }
  return out;
}

}  // namespace qtune::reports::testing
