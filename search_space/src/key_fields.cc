#include "key_fields.h"

#include <algorithm>
#include <stdexcept>

namespace qtune::detail {

std::map<std::string, std::string> parse_key_fields(const std::string& what, const std::string& key,
                                                    const std::string& body, const std::vector<std::string>& expected,
                                                    const std::string& context,
                                                    const std::vector<std::string>& optional) {
  const std::string prefix = what + " '" + key + "': ";
  std::map<std::string, std::string> fields;
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t end = body.find(';', start);
    if (end == std::string::npos) end = body.size();
    const std::string item = body.substr(start, end - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(prefix + "malformed item '" + item + "', expected field=value");
    const std::string name = item.substr(0, eq);
    if (std::find(expected.begin(), expected.end(), name) == expected.end() &&
        std::find(optional.begin(), optional.end(), name) == optional.end())
      throw std::invalid_argument(prefix + "unknown field '" + name + "'" + context);
    if (!fields.emplace(name, item.substr(eq + 1)).second)
      throw std::invalid_argument(prefix + "field '" + name + "' given twice");
    start = end + 1;
  }
  for (const auto& f : expected) {
    if (!fields.count(f)) throw std::invalid_argument(prefix + "missing field '" + f + "'");
  }
  return fields;
}

}  // namespace qtune::detail
