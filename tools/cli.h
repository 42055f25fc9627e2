// The qtune command line: every subcommand lives in its own cmd_<name>.cc and registers itself
// with QTUNE_COMMAND, declaring its options so that unknown ones are rejected with a clear message.
// Its own small parser rather than CLI11: about 130 lines give what the commands need (declared
// options only, a value given twice or missing is an error, help generated from the specs), and
// the operator syntax (operator_options.h: "2x1", "T,B,L,R", per-operator rules) would stay ours
// on top of any library, which would add a dependency to every build.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace qtune::cli {

// A user error (bad option, bad value, bad file): printed as "qtune <cmd>: <message>", exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;        // without dashes: "db", "json"
  bool takes_value;        // --db FILE vs --json
  std::string help;        // one line; for valued options start with the value's name: "FILE  the database"
  bool repeatable = false;
};

class Args {
 public:
  Args(std::string command, const std::vector<OptionSpec>& specs, const std::vector<std::string>& argv);

  bool flag(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  std::string required(const std::string& name) const;  // UsageError when missing
  std::vector<std::string> values(const std::string& name) const;  // repeatable options
  // Typed values with range checks; UsageError naming the option on bad input.
  long long int_or(const std::string& name, long long fallback, long long min, long long max) const;
  double double_or(const std::string& name, double fallback, double min, double max) const;
  const std::vector<std::string>& positional() const { return positional_; }
  const std::string& command() const { return command_; }

 private:
  std::string command_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

struct Command {
  std::string name;
  std::string summary;  // one line for `qtune --help`
  std::string usage;    // synopsis, e.g. "qtune export --db FILE [--best|--all] [-o FILE]"
  std::vector<OptionSpec> options;
  std::function<int(const Args&)> run;  // returns the exit code
};

std::map<std::string, Command>& registry();

struct Registrar {
  explicit Registrar(Command command);
};

// Help text for one command, generated from its OptionSpecs.
std::string command_help(const Command& command);

}  // namespace qtune::cli

#define QTUNE_CLI_CONCAT2(a, b) a##b
#define QTUNE_CLI_CONCAT(a, b) QTUNE_CLI_CONCAT2(a, b)
#define QTUNE_COMMAND(...) \
  static const ::qtune::cli::Registrar QTUNE_CLI_CONCAT(qtune_command_, __COUNTER__)(::qtune::cli::Command{__VA_ARGS__})
