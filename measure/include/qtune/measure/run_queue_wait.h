// How long the threads of this process waited for a CPU while runnable: the kernel's scheduler
// statistics (/proc/self/task/*/schedstat, second field). Time a measurement spends there is time
// another process had the CPU its kernel was ready to use (docs/measurement-protocol.md,
// "Disturbance").
#pragma once

#include <optional>

namespace qtune {

// Nanoseconds summed over the process's threads; nullopt where the kernel does not keep them.
std::optional<double> run_queue_wait_ns();

}  // namespace qtune
