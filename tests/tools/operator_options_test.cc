// One operator description from options in every command (tools/operator_options.h): the same
// shapes, spellings and errors in tune, bench, space and measure.
#include <string>

#include "tools/cli_harness.h"

namespace {

using namespace qtune::cli_testing;

class OperatorOptions : public CliTest {
 protected:
  Outcome expect_ok(const std::string& args) const {
    SCOPED_TRACE(args);
    const Outcome o = qtune(args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return o;
  }
  void expect_refused(const std::string& args, const std::string& message) const {
    SCOPED_TRACE(args);
    const Outcome o = qtune(args);
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
  }
};

const std::string kStridedConv = "--op conv2d --input 1,8,8,8 --out-c 8 --kernel 3x3 --stride 2x1 --pad 1,0,1,0";
const std::string kStridedConvKey =
    "conv2d:n=1;h=8;w=8;c=8;oc=8;kh=3;kw=3;sh=2;sw=1;dh=1;dw=1;pad=1,0,1,0;g=1;a=u8;out=s8;azp=1;bzp=0;q=channel;"
    "round=tflite;threads=1";

TEST_F(OperatorOptions, EveryCommandReadsTheSameConvolution) {
  EXPECT_NE(expect_ok("space " + kStridedConv).out.find(kStridedConvKey), std::string::npos);
  EXPECT_NE(expect_ok("space --workload '" + kStridedConvKey + "'").out.find(kStridedConvKey), std::string::npos);
  const Outcome measured = expect_ok("measure --in-process --config default " + kStridedConv);
  EXPECT_NE(measured.out.find("conv 8x8x8 3x3/2,1"), std::string::npos) << measured.out;
  const Outcome bench =
      expect_ok("bench " + kStridedConv + " --isa scalar --min-time 0.001 --repetitions 1 --json");
  EXPECT_NE(bench.out.find("\"stride_h\":2,\"stride_w\":1,\"pad_top\":1,\"pad_bottom\":0,\"pad_left\":1,\"pad_right\":0"),
            std::string::npos)
      << bench.out;
  expect_ok("tune --db t.db --trials 1 --confirm 0 --quiet " + kStridedConv);
  EXPECT_NE(expect_ok("query --db t.db --target current").out.find(kStridedConvKey), std::string::npos);
}

TEST_F(OperatorOptions, GemmFromOptionsOrKeyAlike) {
  const std::string key = "gemm:m=8;n=8;k=16;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
  EXPECT_NE(expect_ok("space --m 8 --n 8 --k 16").out.find(key), std::string::npos);
  EXPECT_NE(expect_ok("measure --in-process --config default --workload '" + key + "'").out.find("gemm 8x8x16"),
            std::string::npos);
  // Without --op, bench takes the operator from the key.
  const Outcome bench = expect_ok("bench --workload '" + key + "' --isa scalar --min-time 0.001 --repetitions 1 --json");
  EXPECT_NE(bench.out.find("\"m\":8,\"n\":8,\"k\":16"), std::string::npos) << bench.out;
}

TEST_F(OperatorOptions, MistakesNameTheOption) {
  expect_refused("space " + kStridedConv + " --m 3", "option --m does not apply to --op conv2d");
  expect_refused("bench --op conv2d --input 1,8,8,8 --out-c 8 --pad 1,2", "option --pad: expected P or TOP,BOTTOM,LEFT,RIGHT");
  expect_refused("measure --config default --op conv2d --input 1,8,8 --out-c 8", "option --input: expected N,H,W,C");
  expect_refused("space --op conv2d --input 1,8,8,8 --out-c 8 --stride 2x1x1", "option --stride: expected N or HxW");
  expect_refused("tune --db x.db --op conv2d --input 1,8,-8,8 --out-c 8", "option --input: '1,8,-8,8' is not a list");
  expect_refused("space --workload 'gemm:m=8;n=8;k=16;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1' --op conv2d",
                 "--workload: a gemm key, but --op conv2d");
  expect_refused("space --workload 'gemm:m=8;n=8;k=16;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1' --m 4",
                 "give either --workload KEY or --op and its shape");
  expect_refused("bench --m 8 --n 8 --k 8 --threads 1,0", "option --threads: '1,0' is not a list of integers of at least 1");
  expect_refused("bench --m 8 --n 8 --k 8 --threads 999", "option --threads: 999 exceeds the largest value allowed, 256");
}

}  // namespace
