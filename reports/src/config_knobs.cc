#include "config_knobs.h"

#include <sstream>

namespace qtune::reports {

KnobValues split_config_key(const std::string& key) {
  KnobValues knobs;
  std::istringstream in(key);
  std::string assignment;
  while (std::getline(in, assignment, ';')) {
    if (assignment.empty()) continue;
    const auto eq = assignment.find('=');
    if (eq == std::string::npos) {
      knobs.emplace_back(assignment, "");
    } else {
      knobs.emplace_back(assignment.substr(0, eq), assignment.substr(eq + 1));
    }
  }
  return knobs;
}

std::optional<std::string> knob_value(const KnobValues& knobs, const std::string& knob) {
  for (const auto& [name, value] : knobs) {
    if (name == knob) return value;
  }
  return std::nullopt;
}

std::string key_without(const KnobValues& knobs, const std::string& knob) {
  std::string key;
  for (const auto& [name, value] : knobs) {
    if (name == knob) continue;
    if (!key.empty()) key += ';';
    key += name + "=" + value;
  }
  return key;
}

}  // namespace qtune::reports
