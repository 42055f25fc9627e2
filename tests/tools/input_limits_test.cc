// Absurd sizes, thread counts and unreadable input given to `qtune` as a new user would give them:
// each is a usage or data error naming the problem, refused before anything is allocated or
// measured, and no database file is created or changed by it.
#include <string>

#include "tools/cli_harness.h"

namespace {

using namespace qtune::cli_testing;

class CliInputLimits : public CliTest {
 protected:
  // `qtune <args>` must fail with `message` in its error output and leave no database behind.
  void expect_refused(const std::string& args, const std::string& message) const {
    SCOPED_TRACE(args);
    const Outcome o = qtune(args);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(path("x.db"))) << "a refused command must not create the database";
  }

  void write(const std::string& name, const std::string& text) const { write_file(path(name), text); }
};

TEST_F(CliInputLimits, TuneRefusesLayersBeyondTheMemoryLimit) {
  expect_refused("tune --db x.db --op gemm --m 1000000000 --n 1000 --k 1000 --trials 1 --quiet", "the layer needs");
  expect_refused("tune --db x.db --op conv2d --input 1,100000,100000,1024 --out-c 8 --trials 1 --quiet",
                 "the layer needs");
  expect_refused("tune --db x.db --op conv2d --input 1,99999999999999999999,8,8 --out-c 8 --trials 1 --quiet",
                 "option --input: 99999999999999999999 exceeds the largest dimension qtune accepts, 2147483647");
}

TEST_F(CliInputLimits, TuneThreadsAreBoundedLikeBench) {
  expect_refused("tune --db x.db --op gemm --m 8 --n 8 --k 8 --threads 999 --trials 1 --quiet",
                 "option --threads must be in [1, 256], got 999");
}

TEST_F(CliInputLimits, WorkloadFileWithAnAbsurdLayerNamesFileLayerAndField) {
  write("net.json", R"({"format": "qtune-workloads/1", "network": "n", "layers": [{"name": "fc", "op": "gemm", "m": 1000000000000, "n": 8, "k": 8}]})");
  expect_refused("tune --db x.db --workloads net.json --trials 1 --quiet",
                 "net.json: layer 0 ('fc'): workload: field 'm' is 1000000000000, more than the largest dimension");
}

TEST_F(CliInputLimits, SpaceRefusesAbsurdWorkloadsBeforeBuildingTheSpace) {
  const Outcome key = qtune("space --workload 'gemm:m=1;n=1000000000;k=1;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1'");
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_NE(key.err.find("the layer needs"), std::string::npos) << key.err;
  const Outcome huge = qtune("space --workload 'gemm:m=1;n=9223372036854775807;k=1;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1'");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.err.find("field 'n' is 9223372036854775807, more than the largest dimension"), std::string::npos) << huge.err;
  const Outcome options = qtune("space --op gemm --m 1 --n 1000000000 --k 1");
  EXPECT_EQ(options.exit_code, 2);
  EXPECT_NE(options.err.find("the layer needs"), std::string::npos) << options.err;
}

TEST_F(CliInputLimits, RefusedImportCreatesNoDatabase) {
  write("bad.jsonl", "{\"format\":\"qtune-log/1\",\"settings\":" + std::string(60000, '[') + "}\n");
  expect_refused("import --db x.db bad.jsonl", "bad.jsonl:1: invalid JSON: nested deeper than 256 levels");
  write("overflow.jsonl", "{\"format\":\"qtune-log/1\",\"stats\":{\"median_ns\":1e400}}\n");
  expect_refused("import --db x.db overflow.jsonl", "overflow.jsonl:1: invalid JSON: number overflow parsing '1e400'");
}

TEST_F(CliInputLimits, ConfigKeyWithANonUtf8ByteIsAClearError) {
  const Outcome o = qtune(
      "measure --in-process --workload 'gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1' "
      "--config \"$(printf 'isa=scalar\\377')\" --repetitions 1 --min-time 0.0001");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("invalid_config: configuration 'isa=scalar\\xff': byte 0xff at offset 10 is not printable ASCII"),
            std::string::npos)
      << o.out << o.err;
  EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
  const Outcome isolated = qtune(
      "measure --workload 'gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1' "
      "--config \"$(printf 'isa=scalar\\377')\" --json");
  EXPECT_EQ(isolated.exit_code, 1);
  EXPECT_NE(isolated.out.find("byte 0xff at offset 10"), std::string::npos) << isolated.out << isolated.err;
}

}  // namespace
