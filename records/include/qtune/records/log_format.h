// The JSON-lines log ("qtune-log/1", documented in docs/log-format.md): one measurement per line,
// for shipping best configurations with a model and moving results between databases.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/records/key_validators.h"
#include "qtune/records/measurement.h"
#include "qtune/records/record_check.h"

namespace qtune::records {

inline constexpr const char* kLogFormat = "qtune-log/1";

// One problem of one line: "<origin>:<line>: field 'stats.median_ns': must be >= 0, got -5".
struct LogProblem {
  std::string origin;  // file name as given
  std::size_t line = 0;
  std::string field;   // empty for problems of the whole line (bad JSON)
  std::string message;
  std::string to_string() const;
};

struct LogReadResult {
  std::vector<MeasurementRecord> records;  // the valid lines, source = imported
  std::vector<std::size_t> record_lines;   // line number of each record
  std::vector<LogProblem> problems;        // every problem of every invalid line
  std::size_t invalid_lines = 0;
};

// Thrown when a log (or several) has problems and the caller did not ask to skip them; what()
// lists every problem, one per line.
class LogError : public std::runtime_error {
 public:
  explicit LogError(std::vector<LogProblem> problems);
  const std::vector<LogProblem>& problems() const { return problems_; }

 private:
  std::vector<LogProblem> problems_;
};

// Reads and validates every line (blank lines are ignored). Never throws for bad content.
LogReadResult read_log(std::istream& in, const std::string& origin, const KeyValidators& validators);
// Opens and reads a file; std::runtime_error "<path>: cannot open: <reason>" when unreadable.
LogReadResult read_log_file(const std::string& path, const KeyValidators& validators);

// Validates one parsed line; problems are appended, returns whether the record is usable.
bool parse_log_object(const nlohmann::json& line, const KeyValidators& validators, MeasurementRecord& out,
                      std::vector<FieldProblem>& problems);

// Fields in the documented order ("format" first), so logs are pleasant to read and diff.
nlohmann::ordered_json to_log_json(const MeasurementRecord& record);
// One compact line, without the newline.
std::string to_log_line(const MeasurementRecord& record);

}  // namespace qtune::records
