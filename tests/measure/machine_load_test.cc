// Other processes' share of the machine over an interval, from the kernel's /proc texts.
#include <gtest/gtest.h>

#include <string>

#include "qtune/measure/machine_load.h"

namespace qtune {
namespace {

// A two-core /proc/stat with `busy` ticks of user time and `idle` ticks of idle time in total.
std::string proc_stat(int busy, int idle) {
  return "cpu  " + std::to_string(busy) + " 0 0 " + std::to_string(idle) +
         " 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 5\n";
}

// /proc/self/stat of a process named "q t)une" (spaces and a parenthesis in the name) with the
// given user and system ticks and reaped children's.
std::string self_stat(int utime, int stime, int cutime, int cstime) {
  return "4242 (q t)une) R 1 2 3 4 5 6 7 8 9 10 " + std::to_string(utime) + " " + std::to_string(stime) + " " +
         std::to_string(cutime) + " " + std::to_string(cstime) + " 20 0 1 0 100\n";
}

TEST(MachineLoad, ParsesTheKernelsTexts) {
  const CpuTimes t = parse_cpu_times(proc_stat(300, 100), self_stat(10, 5, 40, 2));
  ASSERT_TRUE(t.valid);
  EXPECT_EQ(t.cores, 2);
  EXPECT_DOUBLE_EQ(t.busy_ticks, 300);
  EXPECT_DOUBLE_EQ(t.total_ticks, 400);
  EXPECT_DOUBLE_EQ(t.own_ticks, 57);
}

TEST(MachineLoad, RefusesWhatIsNotTheKernelsFormat) {
  EXPECT_FALSE(parse_cpu_times("", self_stat(1, 1, 1, 1)).valid);
  EXPECT_FALSE(parse_cpu_times("cpu  1 2 3\ncpu0 1 2 3\n", self_stat(1, 1, 1, 1)).valid);  // too few fields
  EXPECT_FALSE(parse_cpu_times(proc_stat(1, 1), "4242 (qtune) R 1 2").valid);
  EXPECT_FALSE(parse_cpu_times(proc_stat(1, 1), "4242 (qtune) R 1 2 3 4 5 6 7 8 9 10 x y z w 20").valid);
  EXPECT_FALSE(others_busy_cores(CpuTimes{}, parse_cpu_times(proc_stat(1, 1), self_stat(1, 1, 1, 1))));
}

TEST(MachineLoad, OthersAreTheBusyTimeThatIsNotOurs) {
  // 1000 ticks per core pass on two cores. Alone: our process (and its workers) took all the busy
  // time, others none. With a CPU-bound neighbour: one more core's worth.
  const CpuTimes start = parse_cpu_times(proc_stat(0, 0), self_stat(0, 0, 0, 0));
  const CpuTimes alone = parse_cpu_times(proc_stat(1000, 1000), self_stat(200, 50, 700, 50));
  const CpuTimes beside_a_hog = parse_cpu_times(proc_stat(2000, 0), self_stat(200, 50, 700, 50));
  EXPECT_NEAR(*others_busy_cores(start, alone), 0.0, 1e-9);
  EXPECT_NEAR(*others_busy_cores(start, beside_a_hog), 1.0, 1e-9);
  EXPECT_FALSE(others_busy_cores(start, start));  // no time passed
  // The sample of this machine is whole where /proc is.
#if defined(__linux__)
  EXPECT_TRUE(sample_cpu_times().valid);
#endif
}

}  // namespace
}  // namespace qtune
