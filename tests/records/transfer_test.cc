// Export, import and merge: the round trip keeps the best configurations, and doing any of them
// twice adds nothing.
#include "qtune/records/transfer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::config_key;
using testing::correct;
using testing::failed;
using testing::kTarget;
using testing::kTarget2;
using testing::kWorkload;
using testing::kWorkload2;

// (workload, target) -> (config, median) of every best, for comparing databases.
std::map<std::pair<std::string, std::string>, std::pair<std::string, double>> best_map(const TuningDb& db) {
  std::map<std::pair<std::string, std::string>, std::pair<std::string, double>> out;
  for (const auto& b : db.all_best())
    out[{b.measurement.workload_key, b.measurement.target_key}] = {b.measurement.config_key,
                                                                   b.measurement.stats->median_ns};
  return out;
}

class TransferTest : public ::testing::Test {
 protected:
  // A device's database: a session with correct and failed measurements on `target`.
  void fill(TuningDb& db, const std::string& target, double scale) {
    const auto session = db.begin_session({"qtune tune", "random", 7, target, "0.1.0"});
    for (int i = 0; i < 6; ++i) {
      for (const char* workload : {kWorkload, kWorkload2}) {
        auto r = correct(workload, target, config_key(8, 64 * (i + 1)), scale * (1000.0 + 37 * ((i * 5) % 6)) / 3.0);
        r.session_id = session;
        db.add_measurement(r);
      }
    }
    auto crash = failed(kWorkload, target, config_key(2, 64), "crash");
    crash.session_id = session;
    db.add_measurement(crash);
    db.end_session(session, SessionStatus::completed);
  }

  void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
  }

  std::string export_text(const TuningDb& db, ExportSelection selection,
                          const std::optional<std::string>& target = std::nullopt) {
    std::ostringstream out;
    export_log(db, out, selection, target);
    return out.str();
  }

  testing::ScratchDir dir;
};

// With the kinds of candidates known, a workload whose best is a library's also exports the best
// of qtune's kernels after it (for a runtime without the library); workloads qtune won export one
// line, even where a library was measured too.
TEST_F(TransferTest, ExportBestKeepsTheBestOfEachKind) {
  auto db = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(db, kTarget, 1.0);  // qtune's kernels only: one best line per workload
  const std::string library = "algo=onednn;threads=1";
  db.add_measurement(correct(kWorkload, kTarget, library, 10.0));
  db.add_measurement(correct(kWorkload, kTarget, library, 12.0));
  db.add_measurement(correct(kWorkload2, kTarget, library, 1.0e6));  // slower than qtune's there
  const CandidateKindFn kind = [](const MeasurementRecord& m) {
    return m.config_key.rfind("algo=onednn", 0) == 0 ? std::string("onednn") : std::string("qtune");
  };
  std::ostringstream out;
  EXPECT_EQ(export_log(db, out, ExportSelection::best, std::nullopt, kind), 3u);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  // kWorkload2 sorts first; then kWorkload's library line (the faster) and its best own line.
  const std::string own_best = best_map(db).at({kWorkload2, kTarget}).first;
  EXPECT_NE(lines[0].find(own_best), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(library), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("isa=avx2"), std::string::npos) << lines[2];
  // Without the kinds, the one best line per workload as before.
  const std::string one_per_workload = export_text(db, ExportSelection::best);
  EXPECT_EQ(std::count(one_per_workload.begin(), one_per_workload.end(), '\n'), 2);
}

TEST_F(TransferTest, ExportBestThenImportGivesTheSameBest) {
  auto source = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(source, kTarget, 1.0);
  fill(source, kTarget2, 2.0);
  const std::string log = export_text(source, ExportSelection::best);
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4);  // 2 workloads x 2 targets
  write_file(dir.file("best.jsonl"), log);

  auto copy = TuningDb::open(dir.file("b.db"), OpenMode::create, testing::test_validators());
  const auto report = import_logs(copy, {dir.file("best.jsonl")}, false);
  EXPECT_EQ(report.counts.added, 4);
  EXPECT_EQ(best_map(copy), best_map(source));
  for (const auto& m : copy.measurements()) EXPECT_EQ(m.source, MeasurementSource::imported);
  // And the copy exports the very same lines.
  EXPECT_EQ(export_text(copy, ExportSelection::best), log);
}

TEST_F(TransferTest, ExportAllAndTargetFilter) {
  auto db = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(db, kTarget, 1.0);
  fill(db, kTarget2, 1.0);
  const std::string all = export_text(db, ExportSelection::all);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 26);
  const std::string one_target = export_text(db, ExportSelection::all, std::string(kTarget2));
  EXPECT_EQ(std::count(one_target.begin(), one_target.end(), '\n'), 13);
  EXPECT_EQ(one_target.find(kTarget + std::string("\"")), std::string::npos);
  EXPECT_NE(all.find("\"error\":{\"kind\":\"crash\""), std::string::npos);
}

TEST_F(TransferTest, ImportingTheSameLogTwiceAddsNothing) {
  auto source = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(source, kTarget, 1.0);
  write_file(dir.file("all.jsonl"), export_text(source, ExportSelection::all));

  auto db = TuningDb::open(dir.file("b.db"), OpenMode::create, opaque_keys());
  EXPECT_EQ(import_logs(db, {dir.file("all.jsonl")}, false).counts.added, 13);
  const auto again = import_logs(db, {dir.file("all.jsonl")}, false);
  EXPECT_EQ(again.counts.added, 0);
  EXPECT_EQ(again.counts.already_present, 13);
  EXPECT_EQ(db.measurements().size(), 13u);
  // Importing a database's own export into it adds nothing either.
  EXPECT_EQ(import_logs(source, {dir.file("all.jsonl")}, false).counts.added, 0);
  EXPECT_EQ(source.measurements().size(), 13u);
}

TEST_F(TransferTest, InvalidLineMeansNothingLandsUnlessSkipping) {
  auto source = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(source, kTarget, 1.0);
  std::string log = export_text(source, ExportSelection::best);
  write_file(dir.file("good.jsonl"), log);
  write_file(dir.file("bad.jsonl"), log + "{\"format\":\"qtune-log/1\"}\n");

  auto db = TuningDb::open(dir.file("b.db"), OpenMode::create, testing::test_validators());
  try {
    import_logs(db, {dir.file("good.jsonl"), dir.file("bad.jsonl")}, false);
    FAIL() << "expected LogError";
  } catch (const LogError& e) {
    EXPECT_GE(e.problems().size(), 5u);  // workload, target, config, stats, error, timestamp, ...
    EXPECT_NE(std::string(e.what()).find(dir.file("bad.jsonl") + ":3: field 'workload': missing"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(db.measurements().empty());

  const auto report = import_logs(db, {dir.file("good.jsonl"), dir.file("bad.jsonl")}, true);
  EXPECT_EQ(report.counts.added, 2);
  EXPECT_EQ(report.counts.already_present, 2);  // the good lines appear in both files
  EXPECT_EQ(report.skipped_lines, 1u);
  EXPECT_FALSE(report.skipped.empty());
}

TEST_F(TransferTest, MergeKeepsTargetsApartAndIsIdempotent) {
  {
    auto a = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
    fill(a, kTarget, 1.0);
    auto b = TuningDb::open(dir.file("b.db"), OpenMode::create, opaque_keys());
    fill(b, kTarget2, 0.5);  // faster device: must not override the other target's best
  }
  auto merged = TuningDb::open(dir.file("merged.db"), OpenMode::create, opaque_keys());
  auto first = merged.merge_from(dir.file("a.db"));
  EXPECT_EQ(first.added, 13);
  EXPECT_EQ(first.sessions_added, 1);
  merged.merge_from(dir.file("b.db"));
  const auto before = merged.measurements().size();
  const auto again = merged.merge_from(dir.file("a.db"));
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.already_present, 13);
  EXPECT_EQ(again.sessions_added, 0);
  EXPECT_EQ(merged.measurements().size(), before);
  EXPECT_EQ(merged.sessions().size(), 2u);
  EXPECT_EQ(merged.targets().size(), 2u);

  auto a = TuningDb::open(dir.file("a.db"), OpenMode::read_only, opaque_keys());
  auto b = TuningDb::open(dir.file("b.db"), OpenMode::read_only, opaque_keys());
  auto expected = best_map(a);
  for (const auto& entry : best_map(b)) expected.insert(entry);
  EXPECT_EQ(best_map(merged), expected);
  // Sessions keep their measurements (ids remapped) and their tuning curves.
  for (const auto& s : merged.sessions()) {
    EXPECT_EQ(s.measurements, 13);
    EXPECT_EQ(merged.tuning_curve(s.id).size(), 13u);
  }
  for (const auto& m : merged.measurements()) EXPECT_EQ(m.source, MeasurementSource::measured);
}

// A merge copies what another qtune recorded, keys this build's validators reject included: they
// describe the workloads they know, and nothing is lost for those they do not.
TEST_F(TransferTest, MergeCopiesRowsWhoseKeysTheValidatorsReject) {
  const std::string unknown_workload = "matmul:m=1;n=2;k=3";
  const std::string unknown_target = "isa=riscv64";
  {
    auto other = TuningDb::open(dir.file("other.db"), OpenMode::create, opaque_keys());
    fill(other, kTarget, 1.0);
    other.add_measurement(correct(unknown_workload, unknown_target, config_key(8, 64), 500));
  }
  auto merged = TuningDb::open(dir.file("merged.db"), OpenMode::create, testing::test_validators());
  EXPECT_EQ(merged.merge_from(dir.file("other.db")).added, 14);
  MeasurementFilter of_unknown;
  of_unknown.workload_key = unknown_workload;
  ASSERT_EQ(merged.measurements(of_unknown).size(), 1u);
  EXPECT_EQ(merged.measurements(of_unknown).front().target_key, unknown_target);
  for (const auto& w : merged.workloads()) {
    EXPECT_EQ(w.description, w.key == unknown_workload ? "" : "gemm test") << w.key;
  }
}

TEST_F(TransferTest, MergeFromANonQtuneFileChangesNothing) {
  auto merged = TuningDb::open(dir.file("merged.db"), OpenMode::create, opaque_keys());
  fill(merged, kTarget, 1.0);
  testing::write_bytes(dir.file("junk.db"), "junk");
  EXPECT_THROW(merged.merge_from(dir.file("junk.db")), DbError);
  EXPECT_THROW(merged.merge_from(dir.file("missing.db")), DbError);
  EXPECT_EQ(merged.measurements().size(), 13u);
  EXPECT_EQ(testing::read_bytes(dir.file("junk.db")), "junk");
}

}  // namespace
}  // namespace qtune::records

namespace qtune::records {
namespace {

// Lines that cannot even be read as JSON (a number beyond double, nesting past the limit) abort
// nothing: without --skip-invalid they are reported with file and line, with it they are skipped.
TEST_F(TransferTest, UnreadableLinesAreSkippedUnderSkipInvalid) {
  auto source = TuningDb::open(dir.file("a.db"), OpenMode::create, opaque_keys());
  fill(source, kTarget, 1.0);
  const std::string log = export_text(source, ExportSelection::best);
  std::string overflow = log.substr(0, log.find('\n'));
  const auto at = overflow.find("\"median_ns\":") + std::string("\"median_ns\":").size();
  overflow = overflow.substr(0, at) + "1e400" + overflow.substr(overflow.find(',', at));
  const std::string deep = "{\"settings\":" + std::string(60000, '[') + std::string(60000, ']') + "}";
  write_file(dir.file("mixed.jsonl"), overflow + "\n" + log + deep + "\n");

  auto db = TuningDb::open(dir.file("b.db"), OpenMode::create, testing::test_validators());
  try {
    import_logs(db, {dir.file("mixed.jsonl")}, false);
    FAIL() << "expected LogError";
  } catch (const LogError& e) {
    ASSERT_EQ(e.problems().size(), 2u) << e.what();
    EXPECT_EQ(e.problems()[0].to_string(), dir.file("mixed.jsonl") + ":1: invalid JSON: number overflow parsing '1e400'");
    EXPECT_EQ(e.problems()[1].to_string(), dir.file("mixed.jsonl") + ":4: invalid JSON: nested deeper than 256 levels");
  }
  EXPECT_TRUE(db.measurements().empty());

  const auto report = import_logs(db, {dir.file("mixed.jsonl")}, true);
  EXPECT_EQ(report.counts.added, 2);
  EXPECT_EQ(report.skipped_lines, 2u);
}

// Reading and checking touches no database, so a refused import creates no file.
TEST_F(TransferTest, ReadingLogsForImportNeedsNoDatabase) {
  write_file(dir.file("bad.jsonl"), "{\"format\":\"qtune-log/1\"}\n");
  EXPECT_THROW(read_logs_for_import({dir.file("bad.jsonl")}, testing::test_validators(), false), LogError);
  const CheckedLogs skipped = read_logs_for_import({dir.file("bad.jsonl")}, testing::test_validators(), true);
  EXPECT_TRUE(skipped.records.empty());
  EXPECT_EQ(skipped.report.skipped_lines, 1u);
}

}  // namespace
}  // namespace qtune::records
