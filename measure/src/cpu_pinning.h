// Pins the calling thread to one CPU for a scope and restores its previous affinity after.
#pragma once

#include <sched.h>

namespace qtune::detail {

class ScopedCpuPin {
 public:
  explicit ScopedCpuPin(int cpu);  // cpu < 0: no change. Throws std::runtime_error naming the CPU.
  ~ScopedCpuPin();
  ScopedCpuPin(const ScopedCpuPin&) = delete;
  ScopedCpuPin& operator=(const ScopedCpuPin&) = delete;

 private:
  bool pinned_ = false;
  cpu_set_t previous_{};
};

}  // namespace qtune::detail
