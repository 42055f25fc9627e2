// The `qtune` program driven the way its users drive it: a tuning session, export, import and the
// CI gate `query --require`, plus the promise that bad input is a clear error that changes nothing.
#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tools/cli_harness.h"

namespace {

using namespace qtune::cli_testing;

// The per-layer lines of `qtune run --json`.
std::vector<std::string> run_layer_lines(const std::string& out) {
  std::vector<std::string> layers;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(R"("type":"layer")") != std::string::npos) layers.push_back(line);
  }
  return layers;
}

// The value of a string field of one JSON line ("<missing>" when it has none).
std::string string_field(const std::string& line, const std::string& name) {
  const std::string quoted = cat("\"", name, "\":\"");
  const std::size_t at = line.find(quoted);
  if (at == std::string::npos) return "<missing>";
  const std::size_t begin = at + quoted.size();
  return line.substr(begin, line.find('"', begin) - begin);
}

class Cli : public CliTest {
 protected:
  // A network of one tiny GEMM layer, plus (with `extra`) a second layer nobody tuned.
  void write_workloads(const std::string& name, bool extra) const {
    std::string layers = R"({"name": "fc", "op": "gemm", "m": 16, "n": 24, "k": 40})";
    if (extra) layers.append(R"(, {"name": "fc_untuned", "op": "gemm", "m": 8, "n": 8, "k": 8})");
    write_file(path(name), cat(R"({"format": "qtune-workloads/1", "network": "tiny", "layers": [)", layers, "]}"));
  }

  // Tunes the one-layer network into `db`.
  void tune_tiny(const std::string& db, int trials) const {
    // Without confirmation, so that every measurement is a trial (the tests count them).
    const Outcome o = qtune(cat("tune --db ", db, " --op gemm --m 16 --n 24 --k 40 --trials ", trials, " --confirm 0 --quiet"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
};

TEST_F(Cli, VersionHelpAndUsageErrors) {
  Outcome o = qtune("--version");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out.rfind("qtune ", 0), 0u) << o.out;

  o = qtune("--help");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* command : {"tune", "export", "import", "merge", "query", "run", "bench", "report", "targets"})
    EXPECT_NE(o.out.find(cat("  ", command)), std::string::npos) << command << " missing from --help";

  o = qtune("frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("unknown command 'frobnicate'"), std::string::npos) << o.err;

  o = qtune("tune --db x.db --frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("unknown option '--frobnicate'"), std::string::npos) << o.err;

  o = qtune("tune --db x.db --op gemm --m 8 --n 8 --k 8 --strategy annealing");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--strategy"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("annealing"), std::string::npos) << o.err;

  o = qtune("tune --db x.db --op gemm --m 0 --n 8 --k 8");
  EXPECT_EQ(o.exit_code, 2) << "a zero-sized GEMM is a usage error";
  EXPECT_FALSE(fs::exists(path("x.db"))) << "a usage error must not create the database";
}

TEST_F(Cli, TuneTakesTheModelStrategysOptions) {
  // Each option checked before anything is measured or created.
  for (const char* bad : {"--model-epsilon 1.5", "--model-warmup -1", "--model-starts 4", "--model-starts 0,0",
                          "--model-starts 1.5,2", "--anneal-steps 0", "--anneal-temperature 0.1,0.3",
                          "--anneal-temperature 0.3,x", "--strategy random --anneal-steps 8"}) {
    const Outcome o = qtune(cat("tune --db bad.db --op gemm --m 16 --n 24 --k 40 --trials 2 ", bad));
    EXPECT_EQ(o.exit_code, 2) << bad;
    const std::string option = std::string(bad).substr(0, std::string(bad).find(' '));
    const std::string named = option == "--strategy" ? "--strategy model only" : option;
    EXPECT_NE(o.err.find(named), std::string::npos) << bad << ": " << o.err;
  }
  EXPECT_FALSE(fs::exists(path("bad.db"))) << "a usage error must not create the database";

  const Outcome o = qtune("tune --db m.db --op gemm --m 16 --n 24 --k 40 --trials 4 --confirm 0 --quiet --model-warmup 1 "
                          "--model-epsilon 0 --model-starts 2,1 --anneal-steps 4 --anneal-temperature 0.2,0.01");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(qtune("query --db m.db --json").exit_code, 0);
}

TEST_F(Cli, TargetsListsWhatThisProcessCanRun) {
  Outcome o = qtune("targets");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("scalar"), std::string::npos) << o.out;

  // QTUNE_ISAS restricts what the process may use; a name it does not know stops every command.
  o = qtune("targets", "QTUNE_ISAS=scalar");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("restricted by QTUNE_ISAS to: scalar\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("kernel instruction sets usable here: scalar\n"), std::string::npos) << o.out;
  o = qtune("targets", "QTUNE_ISAS=scalar,avx3");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("QTUNE_ISAS: unknown instruction set 'avx3'"), std::string::npos) << o.err;
}

TEST_F(Cli, TuneExportImportAndTheCiGate) {
  tune_tiny("tuning.db", 3);
  write_workloads("net.json", false);
  write_workloads("net_plus.json", true);

  Outcome o = qtune("query --db tuning.db --require net.json --target current");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  o = qtune("query --db tuning.db --require net_plus.json");
  EXPECT_EQ(o.exit_code, 1) << "a layer without a tuned configuration must fail the gate";
  EXPECT_NE(o.out.find("fc_untuned"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("fc "), std::string::npos) << "only the missing layer is listed:\n" << o.out;

  o = qtune("export --db tuning.db --best -o best.jsonl");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string log = slurp(path("best.jsonl"));
  // One best line per (workload, target); where the best is a library's (oneDNN wins such a small
  // layer on some CPUs), the best of qtune's kernels follows it, for runtimes without the library.
  const auto lines = std::count(log.begin(), log.end(), '\n');
  const bool library_first = log.find("\"config\":\"algo=onednn") < log.find('\n');
  EXPECT_EQ(lines, library_first ? 2 : 1) << log;
  if (library_first) {
    EXPECT_NE(log.find("\"config\":\"algo=qtune", log.find('\n')), std::string::npos) << log;
  }

  // The shipped log alone satisfies the gate in a fresh database, and importing twice adds nothing.
  o = qtune("import --db shipped.db best.jsonl");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(cat("imported ", lines, " measurement")), std::string::npos) << o.out;
  o = qtune("import --db shipped.db best.jsonl");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("imported 0 measurement"), std::string::npos) << o.out;
  EXPECT_EQ(qtune("query --db shipped.db --require net.json").exit_code, 0);
  EXPECT_EQ(qtune("export --db shipped.db --best").out, log) << "export -> import -> export is the identity";
}

// `--rounding MODE` puts a whole network in one rounding for tune and run alike (fp32: oneDNN's
// math, so that `qtune run` compares the same computation); the tuning then applies as is.
// Without VNNI the default is a widening family (vpmaddwd), and the byte family of the same
// registers, exact through clipped weight pairs but no default, is measured right after it: the
// first two trials of a session are the default and its twin.
TEST_F(Cli, TuningWithoutVnniMeasuresTheByteFamilyRightAfterTheDefault) {
  if (qtune("targets").out.find("AVX2            yes") == std::string::npos) GTEST_SKIP() << "no AVX2 here";
  const std::string restricted = "QTUNE_ISAS=scalar,avx2,avx2ubsw";
  Outcome o = qtune("tune --db twin.db --op gemm --m 64 --n 64 --k 256 --trials 2 --confirm 0 --quiet", restricted);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = qtune("export --db twin.db --all", restricted);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 2) << o.out;
  EXPECT_NE(o.out.find(R"("config":"algo=qtune;isa=avx2;)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("config":"algo=qtune;isa=avx2ubsw;)"), std::string::npos) << o.out;
}

TEST_F(Cli, RoundingOptionPutsTheNetworkInOneRounding) {
  write_workloads("net.json", false);
  Outcome o = qtune("tune --db fp32.db --workloads net.json --rounding fp32 --trials 2 --confirm 0 --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = qtune("query --db fp32.db");
  EXPECT_NE(o.out.find("round=fp32"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("round=tflite"), std::string::npos) << o.out;

  o = qtune("run --workloads net.json --db fp32.db --rounding fp32 --repetitions 1 --no-store --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("round=fp32"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(R"("source":"tuned")"), std::string::npos) << "the fp32 tuning applies as is:\n" << o.out;

  for (const char* command : {"tune --db x.db --workloads net.json", "run --workloads net.json"}) {
    o = qtune(cat(command, " --rounding half"));
    EXPECT_EQ(o.exit_code, 2) << command;
    EXPECT_NE(o.err.find("option --rounding: expected tflite, upward, tonearest, arm or fp32, got 'half'"),
              std::string::npos)
        << o.err;
  }
  EXPECT_FALSE(fs::exists(path("x.db"))) << "a usage error must not create the database";
}

#ifdef QTUNE_HAVE_ONEDNN
// Layers in the deployed schemes keep a oneDNN time: a convolution with a weight zero point (which
// oneDNN 2.6 cannot express) runs in oneDNN with symmetric weights, the same work, and says so; a
// fully connected layer with u8 output runs in oneDNN's matmul.
TEST_F(Cli, RunTimesOneDnnOnLayersOfTheDeployedSchemes) {
  write_file(path("net.json"), R"({"format": "qtune-workloads/1", "network": "deployed",
    "defaults": {"a_type": "u8", "out_type": "u8", "a_zero_point_nonzero": false,
                 "b_zero_point_nonzero": true, "per_channel": false, "rounding": "tflite"},
    "layers": [{"name": "conv", "op": "conv2d", "input": [1, 8, 8, 16], "out_c": 16, "kernel": [3, 3],
                "pad": [1, 1, 1, 1]},
               {"name": "fc", "op": "gemm", "m": 1, "n": 24, "k": 64, "b_zero_point_nonzero": false}]})");
  const Outcome o = qtune("run --workloads net.json --repetitions 1 --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto layers = run_layer_lines(o.out);
  EXPECT_EQ(layers.size(), 2u) << o.out;
  for (const std::string& line : layers) {
    EXPECT_EQ(line.find(R"("onednn_ns":null)"), std::string::npos) << line;
    if (string_field(line, "layer") == "conv") {
      EXPECT_NE(string_field(line, "onednn").find("weight zero points dropped"), std::string::npos) << line;
    }
  }
}
#endif

// oneDNN's int32 dot products are checked against the exact ones on each layer's data: equal with
// VNNI; restricted to AVX-512 without it (DNNL_MAX_CPU_ISA=AVX512_CORE), uniform weights make its
// saturating vpmaddubsw pair sums differ, and the layer lines and the total count them. A weight
// distribution qtune does not know is a usage error.
TEST_F(Cli, RunCountsOneDnnsInexactSums) {
  if (qtune("targets").out.find("libraries compiled in: onednn") == std::string::npos)
    GTEST_SKIP() << "oneDNN is not part of this build";
  write_file(path("net.json"), R"({"format": "qtune-workloads/1", "network": "plain",
    "defaults": {"a_type": "u8", "out_type": "u8", "rounding": "fp32"},
    "layers": [{"name": "conv", "op": "conv2d", "input": [1, 12, 12, 64], "out_c": 32, "kernel": [3, 3],
                "pad": [1, 1, 1, 1]},
               {"name": "fc", "op": "gemm", "m": 4, "n": 48, "k": 512}]})");
  const auto total_line = [](const std::string& out) {
    const std::size_t at = out.find(R"("type":"total")");
    return at == std::string::npos ? std::string() : out.substr(out.rfind('\n', at) + 1);
  };
  const auto count = [](const std::string& line, const std::string& name) {
    const std::size_t at = line.find(cat("\"", name, "\":"));
    return at == std::string::npos ? -1L : std::stol(line.substr(at + name.size() + 3));
  };
  if (qtune("targets").out.find("AVX-512 VNNI    yes") != std::string::npos) {
    const Outcome o = qtune("run --workloads net.json --repetitions 1 --no-store --weights uniform --json");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const std::string total = total_line(o.out);
    EXPECT_EQ(count(total, "onednn_exactness_layers"), 2) << o.out;
    EXPECT_EQ(count(total, "onednn_inexact_layers"), 0) << total;
    EXPECT_EQ(count(total, "onednn_sums_checked"), 12 * 12 * 32 + 4 * 48) << total;
  }
  if (qtune("targets").out.find("AVX-512 BW      yes") != std::string::npos) {
    const std::string restricted = "DNNL_MAX_CPU_ISA=AVX512_CORE QTUNE_ISAS=scalar,avx512bw";
    Outcome o = qtune("run --workloads net.json --repetitions 1 --no-store --weights uniform --json", restricted);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const std::string total = total_line(o.out);
    EXPECT_GE(count(total, "onednn_inexact_layers"), 1) << o.out;
    EXPECT_GT(count(total, "onednn_sums_mismatched"), 0) << total;
    for (const std::string& line : run_layer_lines(o.out)) EXPECT_GT(count(line, "onednn_sums_checked"), 0) << line;
    o = qtune("run --workloads net.json --repetitions 1 --no-store --weights uniform", restricted);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("oneDNN INEXACT: its int32 dot products differ from the exact ones on "), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("dnn sums off"), std::string::npos) << o.out;
  }
  const Outcome bad = qtune("run --workloads net.json --weights gaussian");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("option --weights: expected trained or uniform, got 'gaussian'"), std::string::npos) << bad.err;
}

// A GEMM layer tuned where oneDNN is usable holds both kinds of candidate (the tuner measures the
// library beside the default first): `qtune run` says which kind won the tuning and by how much
// over the best of the other, runs the winner, times the tuning's best of the other kind beside it
// (bit-exact like it: the run compares their outputs), and says "-" without a database, where the
// other kind is the library the layer's space offers.
TEST_F(Cli, RunSaysWhichKindOfCandidateWonEachLayer) {
  if (qtune("targets").out.find("libraries usable here: onednn") == std::string::npos)
    GTEST_SKIP() << "oneDNN is not usable here";
  tune_tiny("tuning.db", 2);
  write_workloads("net.json", false);
  Outcome o = qtune("run --workloads net.json --db tuning.db --repetitions 1 --no-store --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto layers = run_layer_lines(o.out);
  ASSERT_EQ(layers.size(), 1u) << o.out;
  const std::string winner = string_field(layers[0], "winner"), runner_up = string_field(layers[0], "runner_up");
  EXPECT_TRUE((winner == "qtune" && runner_up == "onednn") || (winner == "onednn" && runner_up == "qtune"))
      << layers[0];
  EXPECT_EQ(string_field(layers[0], "computed_by"), winner) << "the runtime runs the tuning's winner";
  const std::size_t margin_at = layers[0].find(R"("margin":)");
  ASSERT_NE(margin_at, std::string::npos) << layers[0];
  const double margin = std::stod(layers[0].substr(margin_at + 9));
  EXPECT_GE(margin, 1.0);
  EXPECT_EQ(string_field(layers[0], "other_kind"), runner_up) << layers[0];
  EXPECT_EQ(string_field(layers[0], "other_kind_config"), string_field(layers[0], "runner_up_config")) << layers[0];
  EXPECT_EQ(string_field(layers[0], "other_kind_origin"), "tuning") << layers[0];
  EXPECT_NE(layers[0].find(R"("other_kind_ns":)"), std::string::npos) << layers[0];
  EXPECT_EQ(layers[0].find(R"("other_kind_ns":null)"), std::string::npos) << layers[0];

  o = qtune("run --workloads net.json --db tuning.db --repetitions 1 --no-store");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("won by"), std::string::npos) << o.out;
  char margin_text[32];
  std::snprintf(margin_text, sizeof margin_text, "%.2fx", margin);
  EXPECT_NE(o.out.find(cat(winner, " ", margin_text, " ")), std::string::npos) << o.out;  // "onednn 1.31x"
  EXPECT_NE(o.out.find("other kind/tun"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best of qtune's kernels and the libraries per layer, this run: "), std::string::npos) << o.out;

  o = qtune("run --workloads net.json --repetitions 1 --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(R"("won_by":null)"), std::string::npos) << o.out;
  const auto untuned = run_layer_lines(o.out);
  ASSERT_EQ(untuned.size(), 1u) << o.out;
  EXPECT_EQ(string_field(untuned[0], "other_kind"), "onednn") << untuned[0];
  EXPECT_EQ(string_field(untuned[0], "other_kind_origin"), "offered") << untuned[0];
  EXPECT_EQ(string_field(untuned[0], "other_kind_config"), "algo=onednn;threads=1") << untuned[0];
  EXPECT_EQ(untuned[0].find(R"("other_kind_ns":null)"), std::string::npos) << untuned[0];
}

// QTUNE_LIBRARIES restricts the libraries a process may use, as QTUNE_ISAS the instruction sets:
// with none, the tuner offers no library configuration and qtune run has no other kind to time; a
// name qtune does not know stops every command.
TEST_F(Cli, QtuneLibrariesLeavesLibrariesOut) {
  Outcome o = qtune("targets", "QTUNE_LIBRARIES=none");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("libraries usable here: none"), std::string::npos) << o.out;
  if (qtune("targets").out.find("libraries compiled in: onednn") != std::string::npos) {
    EXPECT_NE(o.out.find("onednn: library onednn is left out by QTUNE_LIBRARIES=none"), std::string::npos) << o.out;
  }
  o = qtune("targets", "QTUNE_LIBRARIES=onednn,mkl");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("QTUNE_LIBRARIES: unknown library 'mkl' (known: onednn, or none)"), std::string::npos) << o.err;

  o = qtune("tune --db tuning.db --op gemm --m 16 --n 24 --k 40 --trials 2 --confirm 0 --quiet", "QTUNE_LIBRARIES=none");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = qtune("export --db tuning.db --all");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("isa="), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("algo=onednn"), std::string::npos) << "no library measured: " << o.out;
  write_workloads("net.json", false);
  o = qtune("run --workloads net.json --db tuning.db --repetitions 1 --no-store --json", "QTUNE_LIBRARIES=none");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto layers = run_layer_lines(o.out);
  ASSERT_EQ(layers.size(), 1u) << o.out;
  EXPECT_EQ(string_field(layers[0], "computed_by"), "qtune") << layers[0];
  EXPECT_NE(layers[0].find(R"("other_kind":null)"), std::string::npos) << layers[0];
}

// A database tuned with every core still applies to a process pinned to one (taskset) or with
// fewer instruction sets (QTUNE_ISAS): the nearest compatible target, named once; code of an
// instruction set the process cannot run is never chosen.
TEST_F(Cli, PinnedOrRestrictedProcessesUseTheNearestCompatibleTarget) {
  tune_tiny("tuning.db", 2);
  write_workloads("net.json", false);
  if (std::system("taskset -c 0 true >/dev/null 2>&1") == 0 && std::thread::hardware_concurrency() >= 2) {
    Outcome o = qtune("run --workloads net.json --db tuning.db --repetitions 1 --no-store", "taskset -c 0");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("(the nearest compatible target of this process: cores "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("every layer ran its own tuned configuration"), std::string::npos) << o.out;
    o = qtune("query --db tuning.db --require net.json", "taskset -c 0");
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_NE(o.err.find("nearest compatible target"), std::string::npos) << o.err;
    o = qtune(cat("query --db tuning.db --require net.json --target '", qtune("targets --key", "taskset -c 0").out, "'"));
    EXPECT_EQ(o.exit_code, 1) << "a named target is exact:\n" << o.out;
  }
  const Outcome o = qtune("run --workloads net.json --db tuning.db --repetitions 1 --no-store --json",
                          "QTUNE_ISAS=scalar,avx2");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(R"("target_differences":"instruction sets )"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find(R"("config":"algo=qtune;isa=avx512)"), std::string::npos)
      << "no AVX-512 code under QTUNE_ISAS=scalar,avx2:\n" << o.out;
  EXPECT_NE(o.out.find(R"("config":"algo=qtune;isa=)"), std::string::npos) << o.out;
}

// qtune run times tuned, default and oneDNN interleaved and calls a difference only beyond the
// measured spread: one configuration is never a win or a loss, and one repetition measures no spread
// (unless the layer was a close call, which qtune run times again with more repetitions).
TEST_F(Cli, RunCallsDifferencesOnlyBeyondTheSpread) {
  tune_tiny("tuning.db", 3);
  write_workloads("net.json", true);  // one tuned layer, one that runs its default
  for (int repetitions : {1, 5}) {
    const Outcome o = qtune(cat("run --workloads net.json --db tuning.db --no-store --json --repetitions ", repetitions));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto layers = run_layer_lines(o.out);
    EXPECT_EQ(layers.size(), 2u) << o.out;
    for (const std::string& line : layers) {
      EXPECT_NE(line.find(R"("tuned_quartiles_ns":[)"), std::string::npos) << line;
      const std::string verdict = string_field(line, "verdict_vs_default");
      if (string_field(line, "config") == string_field(line, "default_config")) {
        EXPECT_EQ(verdict, "same") << "one configuration timed twice is never a win or a loss:\n" << line;
      } else if (repetitions == 1 && line.find(R"("close_call_repetitions":0,)") != std::string::npos) {
        EXPECT_EQ(verdict, "-") << line;
      } else {
        EXPECT_TRUE(verdict == "faster" || verdict == "same" || verdict == "slower") << line;
      }
    }
  }
}

TEST_F(Cli, RerunningASessionContinuesWithoutRemeasuring) {
  tune_tiny("tuning.db", 2);
  const auto lines = [&] {
    const std::string all = qtune("export --db tuning.db --all").out;
    return std::count(all.begin(), all.end(), '\n');
  };
  EXPECT_EQ(lines(), 2);
  tune_tiny("tuning.db", 2);
  EXPECT_EQ(lines(), 2) << "the budget is already spent: nothing is measured again";
  tune_tiny("tuning.db", 4);
  EXPECT_EQ(lines(), 4) << "a larger budget adds only the new trials";
}

TEST_F(Cli, BadFilesAreClearErrorsThatChangeNothing) {
  // A file of random bytes is not taken for a database, and is left as it was.
  std::string junk(4096, '\0');
  std::mt19937 rng(7);
  for (char& c : junk) c = static_cast<char>(rng());
  write_file(path("junk.db"), junk);
  Outcome o = qtune("query --db junk.db");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("junk.db: not a qtune database"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(path("junk.db")), junk);
  o = qtune("tune --db junk.db --op gemm --m 8 --n 8 --k 8 --trials 1 --quiet");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(slurp(path("junk.db")), junk) << "tune must not overwrite a file that is not its database";

  // A log with one good line and one bad one imports nothing, and names the line and the field.
  tune_tiny("tuning.db", 1);
  ASSERT_EQ(qtune("export --db tuning.db --all -o good.jsonl").exit_code, 0);
  const std::string good = slurp(path("good.jsonl"));
  const std::string field = "\"median_ns\":";
  const auto at = good.find(field);
  ASSERT_NE(at, std::string::npos) << good;
  const std::string bad = cat(good.substr(0, at + field.size()), "-", good.substr(at + field.size()));  // a negative time
  write_file(path("mixed.jsonl"), cat(good, bad));
  ASSERT_EQ(qtune("tune --db other.db --op gemm --m 8 --n 8 --k 8 --trials 1 --quiet").exit_code, 0);
  const std::string before = qtune("export --db other.db --all").out;
  ASSERT_FALSE(before.empty());
  o = qtune("import --db other.db mixed.jsonl");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("mixed.jsonl:2"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("median_ns"), std::string::npos) << o.err;
  EXPECT_EQ(qtune("export --db other.db --all").out, before) << "a failed import lands nothing";

  o = qtune("import --db other.db --skip-invalid mixed.jsonl");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("imported 1 measurement"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("skipped"), std::string::npos) << o.err;
}

TEST_F(Cli, ShardsSplitANetworkAndMergeBackWhole) {
  write_workloads("net.json", true);  // two layers
  const std::string tune = "tune --workloads net.json --trials 2 --confirm 0 --quiet";

  // Bad shards are usage errors naming the problem, and create no database.
  for (const char* bad : {"4/4", "-1/2", "1/0", "x/y", "2"}) {
    const Outcome o = qtune(cat(tune, " --db bad.db --shard ", bad));
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_NE(o.err.find(cat("option --shard: shard '", bad, "'")), std::string::npos) << o.err;
  }
  EXPECT_FALSE(fs::exists(path("bad.db")));

  // More shards than layers: the empty ones say so, exit 0 and create nothing.
  Outcome o = qtune(cat(tune, " --db empty.db --shard 2/3"));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("shard 2/3: no layers (3 shards for 2 distinct layers); nothing to tune"), std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("empty.db")));

  // Two shards tune one layer each; the merge has both, and reports per target what is missing.
  for (int shard : {0, 1}) {
    o = qtune(cat(tune, " --db shard", shard, ".db --shard ", shard, "/2"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find(cat("shard ", shard, "/2, session")), std::string::npos) << o.out;
  }
  const auto tuned = [&](const std::string& db) { return qtune(cat("query --db ", db, " --require net.json")); };
  o = tuned("shard0.db");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("1 of 2 layers"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("fc_untuned"), std::string::npos) << "shard 0 has the larger layer, fc, only:\n" << o.out;
  o = tuned("shard1.db");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("missing:\n  fc "), std::string::npos) << "shard 1 has fc_untuned only:\n" << o.out;

  o = qtune("merge --into merged.db shard0.db --require net.json");
  EXPECT_EQ(o.exit_code, 1) << "a layer is still missing";
  EXPECT_NE(o.out.find("1 of 2 layers of tiny have a tuned correct configuration for target arch="), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("missing:\n  fc_untuned"), std::string::npos) << o.out;

  o = qtune("merge --into merged.db shard0.db shard1.db --require net.json");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("merged shard0.db: 0 measurement(s) and 0 session(s) added, 2 already present"),
            std::string::npos) << "merging again adds nothing:\n" << o.out;
  EXPECT_NE(o.out.find("2 of 2 layers"), std::string::npos) << o.out;
  EXPECT_EQ(tuned("merged.db").exit_code, 0);
  const std::string all = qtune("export --db merged.db --all").out;
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 4) << "2 layers x 2 trials, none twice:\n" << all;

  o = qtune("merge --into merged.db shard0.db --require missing.json");
  EXPECT_EQ(o.exit_code, 2) << "a bad --require file is a usage error, before anything is merged";
  EXPECT_NE(o.err.find("option --require"), std::string::npos) << o.err;
}

TEST_F(Cli, MergingAFailedShardThenItsResumptionAddsOnlyTheRest) {
  write_workloads("net.json", true);
  const std::string tune = "tune --db shard.db --workloads net.json --shard 0/1 --confirm 0 --quiet";
  ASSERT_EQ(qtune(cat(tune, " --trials 1")).exit_code, 0);
  fs::copy_file(path("shard.db"), path("partial.db"));  // what a shard killed early published
  ASSERT_EQ(qtune(cat(tune, " --trials 3")).exit_code, 0);  // the resubmitted shard resumes

  Outcome o = qtune("merge --into merged.db partial.db --require net.json");
  EXPECT_EQ(o.exit_code, 0) << "one trial per layer already tunes both:\n" << o.out << o.err;
  EXPECT_NE(o.out.find("merged partial.db: 2 measurement(s) and 1 session(s) added"), std::string::npos) << o.out;
  o = qtune("merge --into merged.db shard.db");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("merged shard.db: 4 measurement(s) and 1 session(s) added, 2 already present"), std::string::npos)
      << o.out;
  EXPECT_EQ(qtune("export --db merged.db --all").out, qtune("export --db shard.db --all").out)
      << "the merge of the partial and the resumed shard is the resumed shard";
}

}  // namespace
