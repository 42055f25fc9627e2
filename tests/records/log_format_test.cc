// The JSON-lines reader: every problem of every line is reported with its line number and field.
#include "qtune/records/log_format.h"

#include <gtest/gtest.h>

#include <sstream>

#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::config_key;
using testing::correct;
using testing::kTarget;
using testing::kWorkload;

std::string good_line(const std::string& config = config_key(8, 256)) {
  return to_log_line(correct(kWorkload, kTarget, config, 1000, "2024-05-01T12:00:00.000000Z"));
}

// A good line with one field replaced (JSON pointer) or removed (value = absent).
std::string edited(const std::string& pointer, const std::optional<nlohmann::json>& value) {
  auto line = nlohmann::json::parse(good_line());
  const nlohmann::json::json_pointer p(pointer);
  if (value) {
    line[p] = *value;
  } else {
    line[p.parent_pointer()].erase(p.back());
  }
  return line.dump();
}

LogReadResult read_text(const std::string& text, const KeyValidators& validators = testing::test_validators()) {
  std::istringstream in(text);
  return read_log(in, "best.jsonl", validators);
}

std::vector<std::string> messages(const LogReadResult& r) {
  std::vector<std::string> out;
  for (const auto& p : r.problems) out.push_back(p.to_string());
  return out;
}

// The single problem of a log made of a good line, then `bad`, then a good line.
std::string only_problem(const std::string& bad) {
  const auto r = read_text(good_line(config_key(4, 128)) + "\n" + bad + "\n" + good_line(config_key(4, 256)) + "\n");
  EXPECT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.invalid_lines, 1u);
  EXPECT_EQ(r.problems.size(), 1u) << ::testing::PrintToString(messages(r));
  return r.problems.empty() ? "" : r.problems[0].to_string();
}

TEST(LogFormatTest, WrittenLinesReadBackEqual) {
  auto error = testing::failed(kWorkload, kTarget, config_key(2, 128), "timeout", "2024-05-01T12:00:01Z");
  auto wrong = correct(kWorkload, kTarget, config_key(4, 128), 77.125, "2024-05-01T12:00:02.25Z");
  wrong.error_kind = "wrong_answer";
  wrong.error_message = "max abs diff 2";
  const auto first = correct(kWorkload, kTarget, config_key(8, 256), 1000.0 / 3.0, "2024-05-01T12:00:00Z");
  const auto r = read_text(to_log_line(first) + "\n\n" + to_log_line(error) + "\r\n" + to_log_line(wrong) + "\n");
  ASSERT_TRUE(r.problems.empty()) << ::testing::PrintToString(messages(r));
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.record_lines, (std::vector<std::size_t>{1, 3, 4}));
  EXPECT_EQ(*r.records[0].stats, *first.stats);  // doubles survive bit for bit
  EXPECT_EQ(r.records[0].settings, first.settings);
  EXPECT_EQ(r.records[0].timestamp, "2024-05-01T12:00:00.000000Z");
  EXPECT_EQ(r.records[0].source, MeasurementSource::imported);
  EXPECT_FALSE(r.records[1].stats);
  EXPECT_EQ(r.records[1].error_kind, "timeout");
  EXPECT_EQ(r.records[2].error_message, "max abs diff 2");
  EXPECT_TRUE(r.records[2].stats);
}

TEST(LogFormatTest, LineStartsWithTheFormatMarker) {
  EXPECT_EQ(good_line().rfind("{\"format\":\"qtune-log/1\",\"workload\":", 0), 0u) << good_line();
}

TEST(LogFormatTest, BadJson) {
  EXPECT_EQ(only_problem("{\"format\": \"qtune-log/1\", ").rfind("best.jsonl:2: invalid JSON: ", 0), 0u);
  EXPECT_EQ(only_problem("not json at all").rfind("best.jsonl:2: invalid JSON: ", 0), 0u);
  EXPECT_EQ(only_problem("[1, 2]"), "best.jsonl:2: expected a JSON object, got array");
}

TEST(LogFormatTest, MissingFields) {
  EXPECT_EQ(only_problem(edited("/workload", std::nullopt)), "best.jsonl:2: field 'workload': missing");
  EXPECT_EQ(only_problem(edited("/config", std::nullopt)), "best.jsonl:2: field 'config': missing");
  EXPECT_EQ(only_problem(edited("/stats/median_ns", std::nullopt)), "best.jsonl:2: field 'stats.median_ns': missing");
  EXPECT_EQ(only_problem(edited("/error", std::nullopt)),
            "best.jsonl:2: field 'error': missing (null for a correct measurement)");
  EXPECT_EQ(only_problem(edited("/stats", nullptr)),
            "best.jsonl:2: field 'stats': must not be null for a correct measurement (error is null)");
  EXPECT_EQ(only_problem(edited("/format", std::nullopt)), "best.jsonl:2: field 'format': missing (expected \"qtune-log/1\")");
}

TEST(LogFormatTest, WrongTypes) {
  EXPECT_EQ(only_problem(edited("/stats/median_ns", "fast")),
            "best.jsonl:2: field 'stats.median_ns': must be a number, got string");
  EXPECT_EQ(only_problem(edited("/stats/repetitions", 2.5)),
            "best.jsonl:2: field 'stats.repetitions': must be an integer, got a fraction");
  EXPECT_EQ(only_problem(edited("/workload", 7)), "best.jsonl:2: field 'workload': must be a string, got number");
  EXPECT_EQ(only_problem(edited("/error", "crash")),
            "best.jsonl:2: field 'error': must be null or an object {\"kind\", \"message\"}, got string");
  EXPECT_EQ(only_problem(edited("/settings", nlohmann::json::array())),
            "best.jsonl:2: field 'settings': must be an object, got array");
}

TEST(LogFormatTest, NumbersOutOfRange) {
  EXPECT_EQ(only_problem(edited("/stats/stddev_ns", -5)), "best.jsonl:2: field 'stats.stddev_ns': must be >= 0, got -5");
  EXPECT_EQ(only_problem(edited("/stats/cv", -0.5)), "best.jsonl:2: field 'stats.cv': must be >= 0, got -0.5");
  EXPECT_EQ(only_problem(edited("/stats/iterations", 0)), "best.jsonl:2: field 'stats.iterations': must be >= 1, got 0");
  EXPECT_EQ(only_problem(edited("/stats/min_ns", 1005)),
            "best.jsonl:2: field 'stats.min_ns': must be <= median_ns (1000), got 1005");
}

TEST(LogFormatTest, NegativeMedianReportsEveryConsequence) {
  const auto r = read_text(edited("/stats/median_ns", -1) + "\n");
  EXPECT_EQ(r.records.size(), 0u);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].to_string(), "best.jsonl:1: field 'stats.median_ns': must be >= 0, got -1");
}

TEST(LogFormatTest, KeysCheckedByTheInjectedValidators) {
  EXPECT_EQ(only_problem(edited("/config", "isa=avx2;tile=8x12;colour=blue")),
            "best.jsonl:2: field 'config': unknown knob 'colour'");
  EXPECT_EQ(only_problem(edited("/workload", "matmul:m=1")), "best.jsonl:2: field 'workload': unknown operator in 'matmul'");
  EXPECT_EQ(only_problem(edited("/target", "x86")), "best.jsonl:2: field 'target': field 'arch': missing");
  // Without validators the same lines are accepted.
  const auto r = read_text(edited("/config", "isa=avx2;colour=blue") + "\n", KeyValidators{});
  EXPECT_TRUE(r.problems.empty());
}

TEST(LogFormatTest, VersionTimestampAndUnknownFields) {
  EXPECT_EQ(only_problem(edited("/format", "qtune-log/2")),
            "best.jsonl:2: field 'format': unsupported version 'qtune-log/2' (this qtune reads qtune-log/1)");
  EXPECT_EQ(only_problem(edited("/timestamp", "2024-13-01T00:00:00Z")),
            "best.jsonl:2: field 'timestamp': must be ISO-8601 UTC like 2024-05-01T12:00:00.000000Z, got "
            "'2024-13-01T00:00:00Z'");
  EXPECT_EQ(only_problem(edited("/timestamp", "2024-05-01 12:00:00")).substr(0, 36),
            "best.jsonl:2: field 'timestamp': mus");
  EXPECT_EQ(only_problem(edited("/speed", 3)), "best.jsonl:2: field 'speed': unknown field");
  EXPECT_EQ(only_problem(edited("/stats/p99_ns", 3)), "best.jsonl:2: field 'stats.p99_ns': unknown field");
  EXPECT_EQ(only_problem(edited("/error", nlohmann::json{{"kind", ""}, {"message", ""}})),
            "best.jsonl:2: field 'error.kind': must not be empty (use \"error\": null for a correct measurement)");
}

TEST(LogFormatTest, EveryProblemOfEveryLineIsReported) {
  auto line = nlohmann::json::parse(good_line());
  line["stats"]["median_ns"] = -1;
  line["stats"]["cv"] = "high";
  line.erase("target");
  const auto r = read_text(good_line() + "\n" + line.dump() + "\n{\n" + edited("/stats/gops", -2) + "\n");
  EXPECT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.invalid_lines, 3u);
  const auto m = messages(r);
  auto has = [&](const std::string& text) { return std::find(m.begin(), m.end(), text) != m.end(); };
  EXPECT_TRUE(has("best.jsonl:2: field 'target': missing")) << ::testing::PrintToString(m);
  EXPECT_TRUE(has("best.jsonl:2: field 'stats.cv': must be a number, got string")) << ::testing::PrintToString(m);
  EXPECT_TRUE(has("best.jsonl:4: field 'stats.gops': must be >= 0, got -2")) << ::testing::PrintToString(m);
  EXPECT_TRUE(has("best.jsonl:2: field 'stats.median_ns': must be >= 0, got -1")) << ::testing::PrintToString(m);
  const auto bad_json = std::find_if(r.problems.begin(), r.problems.end(), [](const LogProblem& p) { return p.line == 3; });
  ASSERT_NE(bad_json, r.problems.end());
  EXPECT_EQ(bad_json->message.rfind("invalid JSON: ", 0), 0u);
}

TEST(LogFormatTest, UnreadableFileNamesIt) {
  try {
    read_log_file("/nonexistent/best.jsonl", {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/best.jsonl: cannot open: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace qtune::records

namespace qtune::records {
namespace {

// A good line whose settings hold `depth` nested arrays.
std::string line_with_settings_depth(int depth) {
  std::string line = good_line();
  const std::string nested = "{\"deep\":" + std::string(depth, '[') + std::string(depth, ']') + "}";
  const auto at = line.find("\"settings\":");
  return line.substr(0, at) + "\"settings\":" + nested + "}";
}

TEST(LogFormatInputLimits, DeeplyNestedValuesAreAProblemOfTheirLine) {
  for (int depth : {300, 60000}) {
    EXPECT_EQ(only_problem(line_with_settings_depth(depth)), "best.jsonl:2: invalid JSON: nested deeper than 256 levels")
        << depth;
  }
  // The limit counts every container: the line object, settings, then the arrays.
  EXPECT_EQ(read_text(line_with_settings_depth(254) + "\n").problems.size(), 0u);
  EXPECT_EQ(read_text(line_with_settings_depth(255) + "\n").problems.size(), 1u);
  // Anywhere in the line, not only in settings.
  EXPECT_EQ(only_problem("{\"format\":" + std::string(50000, '[')), "best.jsonl:2: invalid JSON: nested deeper than 256 levels");
}

TEST(LogFormatInputLimits, NumberBeyondDoubleIsAProblemOfItsLine) {
  std::string line = good_line();
  const auto at = line.find("\"median_ns\":") + std::string("\"median_ns\":").size();
  line = line.substr(0, at) + "1e400" + line.substr(line.find(',', at));
  EXPECT_EQ(only_problem(line), "best.jsonl:2: invalid JSON: number overflow parsing '1e400'");
}

TEST(LogFormatInputLimits, BytesThatAreNotUtf8AreAProblemOfTheirLine) {
  const std::string good = good_line();
  const std::size_t at = good.find("isa=") + 4;
  std::string line = good.substr(0, at);
  line.push_back('\xff');  // one byte that is not UTF-8, inside the config string
  line.append(good, at, std::string::npos);
  const std::string problem = only_problem(line);
  EXPECT_EQ(problem.rfind("best.jsonl:2: invalid JSON: ", 0), 0u) << problem;
  EXPECT_NE(problem.find("UTF-8"), std::string::npos) << problem;
}

}  // namespace
}  // namespace qtune::records
