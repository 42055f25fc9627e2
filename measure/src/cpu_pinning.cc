#include "cpu_pinning.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace qtune::detail {

ScopedCpuPin::ScopedCpuPin(int cpu) {
  if (cpu < 0) return;
  if (cpu >= CPU_SETSIZE) throw std::runtime_error("cannot pin to CPU " + std::to_string(cpu) + ": out of range");
  if (sched_getaffinity(0, sizeof previous_, &previous_) != 0)
    throw std::runtime_error(std::string("sched_getaffinity failed: ") + std::strerror(errno));
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw std::runtime_error("cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno));
  pinned_ = true;
}

ScopedCpuPin::~ScopedCpuPin() {
  if (pinned_) sched_setaffinity(0, sizeof previous_, &previous_);
}

}  // namespace qtune::detail
