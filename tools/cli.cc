#include "cli.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace qtune::cli {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> commands;
  return commands;
}

Registrar::Registrar(Command command) {
  std::string name = command.name;
  registry().emplace(std::move(name), std::move(command));
}

Args::Args(std::string command, const std::vector<OptionSpec>& specs, const std::vector<std::string>& argv)
    : command_(std::move(command)) {
  auto find = [&](const std::string& name) -> const OptionSpec* {
    for (const auto& s : specs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--") {
      positional_.insert(positional_.end(), argv.begin() + static_cast<long>(i) + 1, argv.end());
      break;
    }
    const bool is_long = arg.size() > 2 && arg.rfind("--", 0) == 0;
    const bool is_short = !is_long && arg.size() == 2 && arg[0] == '-' && arg[1] != '-';
    if (!is_long && !is_short) {
      positional_.push_back(arg);
      continue;
    }
    std::string name = is_long ? arg.substr(2) : arg.substr(1);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); is_long && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* spec = find(name);
    if (!spec) throw UsageError("unknown option '" + arg + "' (see 'qtune " + command_ + " --help')");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
      values_[name].push_back("1");
      continue;
    }
    std::string v;
    if (inline_value) {
      v = *inline_value;
    } else {
      if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
      v = argv[++i];
    }
    auto& slot = values_[name];
    if (!slot.empty() && !spec->repeatable) throw UsageError("option --" + name + " given twice");
    slot.push_back(std::move(v));
  }
}

bool Args::flag(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string Args::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

std::string Args::required(const std::string& name) const {
  auto v = value(name);
  if (!v) throw UsageError("missing required option --" + name);
  return *v;
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

long long Args::int_or(const std::string& name, long long fallback, long long min, long long max) const {
  auto v = value(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || errno == ERANGE)
    throw UsageError("option --" + name + " expects an integer, got '" + *v + "'");
  if (parsed < min || parsed > max) {
    std::ostringstream msg;
    msg << "option --" << name << " must be in [" << min << ", " << max << "], got " << parsed;
    throw UsageError(msg.str());
  }
  return parsed;
}

double Args::double_or(const std::string& name, double fallback, double min, double max) const {
  auto v = value(name);
  if (!v) return fallback;
  char* end = nullptr;
  const double parsed = std::strtod(v->c_str(), &end);
  if (v->empty() || *end != '\0') throw UsageError("option --" + name + " expects a number, got '" + *v + "'");
  if (!(parsed >= min && parsed <= max)) {
    std::ostringstream msg;
    msg << "option --" << name << " must be in [" << min << ", " << max << "], got " << *v;
    throw UsageError(msg.str());
  }
  return parsed;
}

std::string command_help(const Command& command) {
  std::ostringstream out;
  out << "usage: " << command.usage << "\n\n" << command.summary << "\n";
  if (!command.options.empty()) out << "\noptions:\n";
  for (const auto& o : command.options) {
    std::string head = "  --" + o.name;
    std::string help = o.help;
    if (o.takes_value) {
      const auto space = help.find("  ");
      head.append(" ").append(space == std::string::npos ? std::string("VALUE") : help.substr(0, space));
      if (space != std::string::npos) help = help.substr(space + 2);
    }
    out << head;
    out << std::string(head.size() < 28 ? 28 - head.size() : 1, ' ') << help << "\n";
  }
  return out.str();
}

}  // namespace qtune::cli
