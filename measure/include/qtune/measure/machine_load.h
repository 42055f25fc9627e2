// What other processes did to the machine over an interval: the CPU time of every core (from
// /proc/stat) minus this process's own and its children's (the measurement workers), from
// /proc/<pid>/stat. A neighbour on another core never delays the measuring threads, so run-queue
// waits (run_queue_wait.h) see nothing, but it shares the caches, memory bandwidth and clock with
// them: `qtune tune` names it in its summary (docs/measurement-protocol.md).
#pragma once

#include <optional>
#include <string_view>

namespace qtune {

struct CpuTimes {
  double busy_ticks = 0;   // all cores: user, nice, system, irq, softirq, steal
  double total_ticks = 0;  // all cores: busy plus idle and iowait
  double own_ticks = 0;    // this process, its reaped children and (sampled) its running ones
  int cores = 0;           // cpuN lines of /proc/stat
  bool valid = false;      // both texts parsed
};

// The kernel's texts parsed (the seam for tests); valid = false when either is not as expected.
CpuTimes parse_cpu_times(std::string_view proc_stat, std::string_view self_stat);
// Now, from /proc, with this process's running children (the measurement worker) counted as its
// own (valid = false where /proc is not there, e.g. not Linux).
CpuTimes sample_cpu_times();

// The average number of cores other processes kept busy between the two samples, or nullopt when
// either is invalid or no time passed.
std::optional<double> others_busy_cores(const CpuTimes& start, const CpuTimes& end);

}  // namespace qtune
