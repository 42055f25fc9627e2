// A tuning session on a machine made busy: a CPU-bound process shares the core the measurements
// are pinned to. The session must notice (the measurements' threads wait for the CPU), take the
// measurements again and say so in its summary. What is checked is the report, never a time.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
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

// Another process spinning on `cpu` for as long as the object lives. Not a child of this one:
// the load sampler counts this process's children as its own (the isolated measurer's worker is
// one), so a neighbour must belong to someone else. A shell starts the loop in the background,
// prints its pid and exits, which leaves the loop to init; `timeout` ends it after a minute should
// this test die before its destructor runs. Spawned rather than forked: a fork() of this process
// (it runs threads) is not safe under qemu-user (tests/CMakeLists.txt), and the shell is a host
// program that runs natively there.
class CpuHog {
 public:
  explicit CpuHog(int cpu) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;  // only the dup2 on fd 1 reaches the shell
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string loop = "timeout 60 taskset -c " + std::to_string(cpu) +
                       " sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 & echo $!";
    char arg0[] = "sh", arg1[] = "-c";
    char* argv[] = {arg0, arg1, loop.data(), nullptr};
    pid_t shell = -1;
    const bool spawned = posix_spawn(&shell, "/bin/sh", &actions, nullptr, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::string text;
    char buffer[64];
    for (ssize_t n; spawned && (n = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    close(out[0]);
    if (!spawned) return;
    int status = 0;
    waitpid(shell, &status, 0);
    pid_ = static_cast<pid_t>(std::atol(text.c_str()));
  }
  ~CpuHog() {
    if (pid_ > 0) kill(pid_, SIGTERM);  // timeout passes it on to the loop
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
    auto db = records::TuningDb::open((dir / "busy.db").string(), records::OpenMode::create, records::opaque_keys());
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
