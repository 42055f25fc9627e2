// The JSON-lines log reader (qtune import): any bytes give records and problems, never a crash,
// and every accepted line survives a write and a second read unchanged.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.h"
#include "qtune/records/log_format.h"
#include "qtune/runtime/key_validators.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace qtune::records;
  static const KeyValidators validators = qtune::runtime::search_space_validators();
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const LogReadResult result = read_log(in, "fuzz.jsonl", validators);
  qtune::fuzz::require(result.records.size() == result.record_lines.size(), "one line number per record");
  for (const auto& problem : result.problems) {
    qtune::fuzz::require(problem.origin == "fuzz.jsonl" && problem.line >= 1, "problems name the file and line");
  }
  for (const MeasurementRecord& record : result.records) {
    const std::string line = to_log_line(record);
    std::istringstream again(line);
    const LogReadResult reread = read_log(again, "rewritten.jsonl", validators);
    qtune::fuzz::require(reread.problems.empty() && reread.records.size() == 1,
                         "an accepted line, written back, reads again: " + line);
    qtune::fuzz::require(to_log_line(reread.records[0]) == line, "a written line reads back to itself: " + line);
  }
  return 0;
}
