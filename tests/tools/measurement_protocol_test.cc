// The measurement protocol from the command line (docs/measurement-protocol.md): one --cache
// option for tune, run, bench and measure, recorded with what they measure, and the disturbance
// each reports.
#include <string>

#include "tools/cli_harness.h"

namespace {

using namespace qtune::cli_testing;

class MeasurementProtocol : public CliTest {};

TEST_F(MeasurementProtocol, CacheStateIsOneOptionRefusedAlikeWhenMisspelled) {
  write_file(path("net.json"),
             R"({"format": "qtune-workloads/1", "network": "tiny", "layers": [{"name": "fc", "op": "gemm", "m": 8, "n": 8, "k": 16}]})");
  for (const std::string command :
       {"tune --db t.db --op gemm --m 8 --n 8 --k 16 --trials 1", "run --workloads net.json",
        "bench --m 8 --n 8 --k 16", "measure --op gemm --m 8 --n 8 --k 16 --config default"}) {
    SCOPED_TRACE(command);
    const Outcome o = qtune(cat(command, " --cache lukewarm"));
    EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
    EXPECT_NE(o.err.find("option --cache: expected warm or cold, got 'lukewarm'"), std::string::npos) << o.err;
  }
}

TEST_F(MeasurementProtocol, ColdTuningIsRecordedAndNamedWithTheEstimate) {
  Outcome o = qtune("tune --db t.db --op gemm --m 8 --n 8 --k 16 --trials 2 --confirm 0 --cache cold --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("cache cold, as `qtune run --cache cold` measures"), std::string::npos) << o.out;
  // The summary says either way whether the machine disturbed the measurements.
  EXPECT_TRUE(o.out.find("machine: no measurement was disturbed") != std::string::npos ||
              o.out.find("machine disturbed: ") != std::string::npos)
      << o.out;
  o = qtune("export --db t.db --all");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(R"("cache":"cold")"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("disturbed":)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("waiting_share":)"), std::string::npos) << o.out;
}

TEST_F(MeasurementProtocol, RunSaysItsCacheStateAndItsDisturbance) {
  write_file(path("net.json"),
             R"({"format": "qtune-workloads/1", "network": "tiny", "layers": [{"name": "fc", "op": "gemm", "m": 8, "n": 8, "k": 16}]})");
  Outcome o = qtune("run --workloads net.json --cache cold --repetitions 3 --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(R"("cache":"cold")"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("retimed":)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("disturbed_layers":)"), std::string::npos) << o.out;
  o = qtune("run --workloads net.json --repetitions 3");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("cache warm"), std::string::npos) << o.out;
  EXPECT_TRUE(o.out.find("machine: no layer's timing was disturbed") != std::string::npos ||
              o.out.find("machine disturbed: ") != std::string::npos)
      << o.out;
}

// qtune run --db stores its cache state with every timing, and qtune report shows it: on a database
// of schema version 2 (tests/fixtures/network_runs_version_2), whose older runs did not record it,
// read as it is by the report and the runtime, migrated by the run that stores into it.
TEST_F(MeasurementProtocol, ReportShowsTheCacheStateOfStoredRunsOlderOnesAsNotRecorded) {
  const std::string fixture = cat(QTUNE_SOURCE_DIR, "/tests/fixtures/network_runs_version_2/");
  fs::copy_file(fixture + "version2.db", path("v2.db"));
  // The fixture was tuned with scalar kernels only, on the x86-64 machine named by its target key:
  // the runs name that target (--target), so that its tuning applies on any machine (another CPU
  // model, aarch64 under qemu), whose own key would find no compatible target in the fixture.
  const std::string scalar = "QTUNE_ISAS=scalar";
  const std::string target =
      " --target 'arch=x86_64;cpu=Intel(R) Xeon(R) Processor;isas=scalar;cores=2;l1d=48K;l2=2048K;"
      "l3=266240K;cc=gcc 12.2.0;qtune=0.1.0'";
  Outcome o = qtune("report --db v2.db --format json -o old.json", scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err.find("migrated"), std::string::npos) << "a report only reads:\n" << o.err;
  const std::string old_report = slurp(path("old.json"));
  EXPECT_NE(old_report.find(R"("cache": null)"), std::string::npos) << old_report;
  EXPECT_EQ(old_report.find(R"("cache": "warm")"), std::string::npos) << "version 2 recorded no cache state";

  // The runtime reads the tuning of version 2 as it is: every layer runs its tuned configuration.
  o = qtune(cat("run --db v2.db --workloads ", fixture, "tiny_network.json --repetitions 3 --no-store", target), scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("every layer ran its own tuned configuration"), std::string::npos) << o.out;
  // The run's timings belong to the machine that takes them (its own target), which the report
  // shows once that target has measurements: a short tuning here (a no-op for the fixture's own
  // machine, whose target it is).
  o = qtune(cat("tune --db v2.db --workloads ", fixture, "tiny_network.json --trials 1 --quiet"), scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = qtune(cat("run --db v2.db --workloads ", fixture, "tiny_network.json --repetitions 3 --cache cold --json", target),
            scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(R"("type":"layer")"), std::string::npos) << o.out;
  std::size_t cold_lines = 0;
  for (auto at = o.out.find(R"("cache":"cold")"); at != std::string::npos; at = o.out.find(R"("cache":"cold")", at + 1))
    ++cold_lines;
  EXPECT_EQ(cold_lines, 3u) << "both layer lines and the total name the run's cache state:\n" << o.out;
  o = qtune("report --db v2.db --target current --format markdown -o new.md", scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string report = slurp(path("new.md"));
  EXPECT_NE(report.find("| qtune run | all 2 layers; cache cold; tuned vs default: "), std::string::npos) << report;
  o = qtune("report --db v2.db --target current --format json -o new.json", scalar);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(slurp(path("new.json")).find(R"("cache": "cold")"), std::string::npos);
}

}  // namespace
