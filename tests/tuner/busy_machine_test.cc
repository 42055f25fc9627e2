// A tuning session on a machine made busy: a CPU-bound process shares the core the measurements
// are pinned to. The session must notice (the measurements' threads wait for the CPU), take the
// measurements again and say so in its summary. What is checked is the report, never a time.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "qtune/measure/machine_load.h"
#include "qtune/records/tuning_db.h"
#include "qtune/tuner/session.h"
#include "qtune/tuner/session_summary.h"

namespace qtune {
namespace {

// The last CPU this process may run on.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  int last = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) last = cpu;
  }
  return last;
}

// A child process spinning on `cpu` for as long as the object lives.
class CpuHog {
 public:
  explicit CpuHog(int cpu) {
    pid_ = fork();
    if (pid_ == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
  }
  ~CpuHog() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  bool started() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

TEST(BusyMachine, SessionReportsTheDisturbance) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("qtune_busy_machine_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string summary;
  std::size_t disturbed = 0;
  {
    const int cpu = last_allowed_cpu();
    CpuHog hog(cpu);
    ASSERT_TRUE(hog.started());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the hog is running
    auto db = records::TuningDb::open((dir / "busy.db").string(), records::OpenMode::create);
    Workload w;
    w.op = OpKind::gemm;
    w.m = w.n = w.k = 64;
    SessionOptions options;
    options.strategy = StrategyKind::random;
    options.trials_per_layer = 3;
    options.confirm_top = 0;
    options.measure.pin_cpu = cpu;  // the hog's core: the measurement has to share it
    options.measure.repetitions = 2;
    options.measure.min_repetition_seconds = 0.02;  // a few of the scheduler's time slices
    InProcessMeasurer measurer;
    TuningSession session({Layer{"fc", w, 1}}, db, measurer, options);
    session.run();
    disturbed = session.layers().at(0).disturbed;
    std::ostringstream out;
    print_summary(out, session.layers(), options.measure, options.disturbance);
    summary = out.str();
  }
  std::filesystem::remove_all(dir);
  EXPECT_GT(disturbed, 0u) << summary;
  EXPECT_NE(summary.find("machine disturbed: "), std::string::npos) << summary;
}

// A CPU-bound neighbour is counted as other processes' load (what `qtune tune` names as "machine
// shared" when it runs on another core and never delays the measuring threads).
TEST(BusyMachine, ANeighboursCpuTimeIsCountedAsOthers) {
  CpuHog hog(last_allowed_cpu());
  ASSERT_TRUE(hog.started());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the hog is running
  const CpuTimes before = sample_cpu_times();
  ASSERT_TRUE(before.valid);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // this process idles meanwhile
  const std::optional<double> others = others_busy_cores(before, sample_cpu_times());
  ASSERT_TRUE(others.has_value());
  EXPECT_GE(*others, 0.5);  // about one core; other processes of the machine only add to it
}

}  // namespace
}  // namespace qtune
