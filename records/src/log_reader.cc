#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <set>

#include "qtune/json_input/bounded_parse.h"
#include "qtune/records/log_format.h"
#include "qtune/records/timestamp.h"

namespace qtune::records {

namespace {

// Reads one JSON line into a record, collecting every problem instead of stopping at the first.
class LineParser {
 public:
  LineParser(const KeyValidators& validators, std::vector<FieldProblem>& problems)
      : validators_(validators), problems_(problems) {}

  bool parse(const nlohmann::json& line, MeasurementRecord& out) {
    if (!line.is_object()) {
      problem("", std::string("expected a JSON object, got ") + line.type_name());
      return false;
    }
    if (!check_format(line)) return false;  // a line of another format version means nothing here
    static const std::set<std::string> kFields = {"format", "workload", "target", "config", "stats",
                                                  "error", "timestamp", "qtune_version", "settings"};
    for (const auto& [name, value] : line.items()) {
      if (!kFields.count(name)) problem(name, "unknown field");
    }

    out = MeasurementRecord{};
    out.source = MeasurementSource::imported;
    const bool have_workload = text(line, "workload", out.workload_key);
    const bool have_target = text(line, "target", out.target_key);
    const bool have_config = text(line, "config", out.config_key);
    text(line, "timestamp", out.timestamp);
    text(line, "qtune_version", out.qtune_version);
    const bool error_present = read_error(line, out);
    read_stats(line, out, error_present);
    if (line.contains("settings")) {
      const auto& settings = line["settings"];
      if (settings.is_object() || settings.is_null()) {
        out.settings = settings;
      } else {
        problem("settings", std::string("must be an object, got ") + settings.type_name());
      }
    }

    // Values and relations: the rules the database applies, reported only for fields that were
    // readable (a missing field is not also "empty").
    for (auto& p : check_record(out)) {
      if (!reported_.count(p.field) && !reported_.count(p.field.substr(0, p.field.find('.')))) problem(p.field, p.message);
    }
    if (auto canonical = canonical_timestamp(out.timestamp)) out.timestamp = *canonical;

    bool workload_valid = false;
    if (have_workload && validators_.workload) {
      workload_valid = validate("workload", [&] { validators_.workload(out.workload_key); });
    } else {
      workload_valid = have_workload;
    }
    if (have_target && validators_.target) validate("target", [&] { validators_.target(out.target_key); });
    // A configuration is only meaningful for a known workload (its op decides the knobs).
    if (have_config && workload_valid && validators_.config)
      validate("config", [&] { out.config_key = validators_.config(out.workload_key, out.config_key); });
    return problems_.empty();
  }

 private:
  void problem(const std::string& field, const std::string& message) {
    reported_.insert(field);
    problems_.push_back({field, message});
  }

  template <typename F>
  bool validate(const char* field, F&& check) {
    try {
      check();
      return true;
    } catch (const std::exception& e) {
      problem(field, e.what());
      return false;
    }
  }

  bool check_format(const nlohmann::json& line) {
    if (!line.contains("format")) {
      problem("format", std::string("missing (expected \"") + kLogFormat + "\")");
      return true;  // probably a qtune log without the marker: report its other problems too
    }
    const auto& format = line["format"];
    if (!format.is_string()) {
      problem("format", std::string("must be the string \"") + kLogFormat + "\", got " + format.type_name());
      return true;
    }
    const std::string value = format.get<std::string>();
    if (value == kLogFormat) return true;
    if (value.rfind("qtune-log/", 0) == 0) {
      problem("format", "unsupported version '" + value + "' (this qtune reads " + kLogFormat + ")");
      return false;
    }
    problem("format", "must be \"" + std::string(kLogFormat) + "\", got '" + value + "'");
    return false;
  }

  bool text(const nlohmann::json& object, const std::string& field, std::string& out, const std::string& prefix = "") {
    const std::string name = prefix + field;
    if (!object.contains(field)) {
      problem(name, "missing");
      return false;
    }
    const auto& value = object[field];
    if (!value.is_string()) {
      problem(name, std::string("must be a string, got ") + value.type_name());
      return false;
    }
    out = value.get<std::string>();
    if (out.empty() && prefix.empty()) {
      problem(name, "must not be empty");
      return false;
    }
    return true;
  }

  bool number(const nlohmann::json& stats, const char* field, double& out) {
    const std::string name = std::string("stats.") + field;
    if (!stats.contains(field)) {
      problem(name, "missing");
      return false;
    }
    const auto& value = stats[field];
    if (!value.is_number()) {
      problem(name, std::string("must be a number, got ") + value.type_name());
      return false;
    }
    out = value.get<double>();
    // Checked here too, so a line with some stats fields missing still hears about the others.
    if (std::string range = check_stats_number(out); !range.empty()) problem(name, range);
    return true;
  }

  bool integer(const nlohmann::json& stats, const char* field, std::int64_t& out) {
    const std::string name = std::string("stats.") + field;
    if (!stats.contains(field)) {
      problem(name, "missing");
      return false;
    }
    const auto& value = stats[field];
    if (!value.is_number_integer()) {
      problem(name, std::string("must be an integer, got ") + (value.is_number() ? "a fraction" : value.type_name()));
      return false;
    }
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
      problem(name, "out of range");
      return false;
    }
    out = value.get<std::int64_t>();
    if (std::string range = check_stats_count(out); !range.empty()) problem(name, range);
    return true;
  }

  // Returns whether the line reports an error (error is a non-null object).
  bool read_error(const nlohmann::json& line, MeasurementRecord& out) {
    if (!line.contains("error")) {
      problem("error", "missing (null for a correct measurement)");
      return false;
    }
    const auto& error = line["error"];
    if (error.is_null()) return false;
    if (!error.is_object()) {
      problem("error", std::string("must be null or an object {\"kind\", \"message\"}, got ") + error.type_name());
      return false;
    }
    for (const auto& [name, value] : error.items()) {
      if (name != "kind" && name != "message") problem("error." + name, "unknown field");
    }
    if (text(error, "kind", out.error_kind, "error.") && out.error_kind.empty()) {
      problem("error.kind", "must not be empty (use \"error\": null for a correct measurement)");
      out.error_kind = "unknown";  // keep the record an error so that stats rules stay right
    }
    text(error, "message", out.error_message, "error.");
    if (out.error_kind.empty()) out.error_kind = "unknown";
    return true;
  }

  void read_stats(const nlohmann::json& line, MeasurementRecord& out, bool error_present) {
    if (!line.contains("stats")) {
      problem("stats", error_present ? "missing (null when the error left no timing)" : "missing");
      return;
    }
    const auto& stats = line["stats"];
    if (stats.is_null()) {
      if (!error_present) problem("stats", "must not be null for a correct measurement (error is null)");
      return;
    }
    if (!stats.is_object()) {
      problem("stats", std::string("must be an object, got ") + stats.type_name());
      return;
    }
    static const std::set<std::string> kStats = {"median_ns", "min_ns", "max_ns", "mean_ns", "stddev_ns",
                                                 "cv",        "repetitions", "iterations", "gops"};
    for (const auto& [name, value] : stats.items()) {
      if (!kStats.count(name)) problem("stats." + name, "unknown field");
    }
    TimingStats s;
    bool ok = number(stats, "median_ns", s.median_ns);
    ok &= number(stats, "min_ns", s.min_ns);
    ok &= number(stats, "max_ns", s.max_ns);
    ok &= number(stats, "mean_ns", s.mean_ns);
    ok &= number(stats, "stddev_ns", s.stddev_ns);
    ok &= number(stats, "cv", s.cv);
    ok &= integer(stats, "repetitions", s.repetitions);
    ok &= integer(stats, "iterations", s.iterations);
    ok &= number(stats, "gops", s.gops);
    if (ok) {
      out.stats = s;
    } else {
      reported_.insert("stats");  // incomplete stats: don't also report "stats required"
    }
  }

  const KeyValidators& validators_;
  std::vector<FieldProblem>& problems_;
  std::set<std::string> reported_;
};

// The reader's position already names the line: "parse error at line 1, column 5: ..." ->
// "parse error at column 5: ...".
std::string without_line_one(std::string text) {
  if (auto at = text.find("at line 1, "); at != std::string::npos) text.erase(at + 3, 8);
  return text;
}

}  // namespace

std::string LogProblem::to_string() const {
  return origin + ":" + std::to_string(line) + ": " + (field.empty() ? message : "field '" + field + "': " + message);
}

namespace {
std::string join(const std::vector<LogProblem>& problems) {
  std::string text;
  for (const auto& p : problems) {
    if (!text.empty()) text += "\n";
    text += p.to_string();
  }
  return text;
}
}  // namespace

LogError::LogError(std::vector<LogProblem> problems) : std::runtime_error(join(problems)), problems_(std::move(problems)) {}

bool parse_log_object(const nlohmann::json& line, const KeyValidators& validators, MeasurementRecord& out,
                      std::vector<FieldProblem>& problems) {
  const std::size_t before = problems.size();
  std::vector<FieldProblem> mine;
  LineParser parser(validators, mine);
  parser.parse(line, out);
  problems.insert(problems.end(), mine.begin(), mine.end());
  return problems.size() == before;
}

LogReadResult read_log(std::istream& in, const std::string& origin, const KeyValidators& validators) {
  LogReadResult result;
  std::string text;
  std::size_t line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<FieldProblem> problems;
    MeasurementRecord record;
    bool valid = false;
    try {
      const nlohmann::json parsed = json_input::parse_bounded(text);
      valid = parse_log_object(parsed, validators, record, problems);
    } catch (const json_input::JsonInputError& e) {
      problems.push_back({"", "invalid JSON: " + without_line_one(e.what())});
    } catch (const std::exception& e) {
      // Whatever else goes wrong belongs to this line alone: report it here (and let --skip-invalid
      // skip it) rather than abort the whole file.
      problems.push_back({"", std::string("unreadable line: ") + e.what()});
    }
    if (valid) {
      result.records.push_back(std::move(record));
      result.record_lines.push_back(line_number);
      continue;
    }
    if (problems.empty()) problems.push_back({"", "invalid line"});
    ++result.invalid_lines;
    for (auto& p : problems) result.problems.push_back({origin, line_number, std::move(p.field), std::move(p.message)});
  }
  if (in.bad()) result.problems.push_back({origin, line_number + 1, "", "read error"});
  return result;
}

LogReadResult read_log_file(const std::string& path, const KeyValidators& validators) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  return read_log(in, path, validators);
}

}  // namespace qtune::records
