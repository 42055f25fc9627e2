// The isolated worker: crashes, aborts and hangs become error results, later candidates still
// measure, and the worker is reused while healthy.
#include <gtest/gtest.h>

#include <signal.h>

#include "fault_operator.h"
#include "qtune/measure/measure.h"

namespace qtune {
namespace {

MeasureSettings quick() {
  MeasureSettings s;
  s.warmup_seconds = 0.001;
  s.min_repetition_seconds = 0.002;
  s.repetitions = 3;
  s.timeout_seconds = 20;
  return s;
}

const std::string kFault = "fault:n=4096";

class IsolatedMeasurerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::register_fault_operator(); }
};

TEST_F(IsolatedMeasurerTest, FailuresBecomeErrorsAndLaterCandidatesStillMeasure) {
  IsolatedMeasurer measurer;
  const int first_pid = measurer.worker_pid();
  ASSERT_GT(first_pid, 0);

  MeasureResult ok = measurer.measure_keys(kFault, "mode=ok", quick());
  ASSERT_TRUE(ok.ok()) << ok.error_message;
  EXPECT_EQ(ok.worker_pid, first_pid);
  EXPECT_EQ(ok.stats.repetitions, 3);
  EXPECT_GT(ok.stats.median, 0);

  // A wrong answer does not hurt the worker: same process measures the next candidate.
  MeasureResult wrong = measurer.measure_keys(kFault, "mode=wrong", quick());
  EXPECT_EQ(wrong.error, ErrorKind::wrong_answer);
  EXPECT_NE(wrong.error_message.find("first mismatch at index 2048"), std::string::npos) << wrong.error_message;
  EXPECT_EQ(wrong.stats.repetitions, 0);  // no timing for a wrong answer
  EXPECT_EQ(wrong.worker_pid, first_pid);
  MeasureResult thrown = measurer.measure_keys(kFault, "mode=throw", quick());
  EXPECT_EQ(thrown.error, ErrorKind::runtime_error);
  EXPECT_EQ(thrown.worker_pid, first_pid);
  EXPECT_EQ(measurer.workers_started(), 1);

  MeasureResult segv = measurer.measure_keys(kFault, "mode=segv", quick());
  EXPECT_EQ(segv.error, ErrorKind::crash);
  EXPECT_NE(segv.error_message.find("SIGSEGV"), std::string::npos) << segv.error_message;
  EXPECT_EQ(segv.worker_pid, first_pid);
  EXPECT_EQ(segv.workload_key, kFault);
  EXPECT_EQ(segv.config_key, "mode=segv");

  MeasureResult after_segv = measurer.measure_keys(kFault, "mode=ok", quick());
  ASSERT_TRUE(after_segv.ok()) << after_segv.error_message;
  const int second_pid = after_segv.worker_pid;
  EXPECT_NE(second_pid, first_pid);

  MeasureResult aborted = measurer.measure_keys(kFault, "mode=abort", quick());
  EXPECT_EQ(aborted.error, ErrorKind::crash);
  EXPECT_NE(aborted.error_message.find("SIGABRT"), std::string::npos) << aborted.error_message;
  EXPECT_EQ(aborted.worker_pid, second_pid);

  MeasureSettings short_limit = quick();
  short_limit.timeout_seconds = 0.5;
  MeasureResult spin = measurer.measure_keys(kFault, "mode=spin", short_limit);
  EXPECT_EQ(spin.error, ErrorKind::timeout);
  EXPECT_NE(spin.error_message.find("0.5 s"), std::string::npos) << spin.error_message;
  EXPECT_GE(spin.wall_seconds, 0.5);
  EXPECT_LT(spin.wall_seconds, 10.0);

  // Two healthy candidates in a row share the (fourth) worker.
  MeasureResult a = measurer.measure_keys(kFault, "mode=ok", quick());
  MeasureResult b = measurer.measure_keys(kFault, "mode=ok", quick());
  ASSERT_TRUE(a.ok()) << a.error_message;
  ASSERT_TRUE(b.ok()) << b.error_message;
  EXPECT_EQ(a.worker_pid, b.worker_pid);
  EXPECT_NE(a.worker_pid, second_pid);
  EXPECT_EQ(measurer.workers_started(), 4);
}

TEST_F(IsolatedMeasurerTest, BadKeysAreErrorsWithoutRestartingTheWorker) {
  IsolatedMeasurer measurer;
  const int pid = measurer.worker_pid();
  MeasureResult bad_config = measurer.measure_keys(kFault, "mode=explode", quick());
  EXPECT_EQ(bad_config.error, ErrorKind::invalid_config);
  EXPECT_NE(bad_config.error_message.find("allowed"), std::string::npos);
  MeasureResult bad_op = measurer.measure_keys("nosuchop:x=1", "a=1", quick());
  EXPECT_EQ(bad_op.error, ErrorKind::invalid_workload);
  MeasureResult bad_gemm = measurer.measure_keys("gemm:m=8;n=8", "isa=scalar", quick());
  EXPECT_EQ(bad_gemm.error, ErrorKind::invalid_workload);
  EXPECT_NE(bad_gemm.error_message.find("missing field"), std::string::npos) << bad_gemm.error_message;
  EXPECT_EQ(measurer.worker_pid(), pid);
  EXPECT_EQ(measurer.workers_started(), 1);
}

TEST_F(IsolatedMeasurerTest, AWorkerKilledWhileIdleIsReplaced) {
  IsolatedMeasurer measurer;
  const int pid = measurer.worker_pid();
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  MeasureResult r = measurer.measure_keys(kFault, "mode=ok", quick());
  // Either the send noticed the dead worker (and a new one measured) or the crash is reported;
  // in both cases the next measurement works.
  if (!r.ok()) {
    EXPECT_EQ(r.error, ErrorKind::crash);
  }
  MeasureResult next = measurer.measure_keys(kFault, "mode=ok", quick());
  ASSERT_TRUE(next.ok()) << next.error_message;
  EXPECT_NE(next.worker_pid, pid);
}

}  // namespace
}  // namespace qtune
