#include "qtune/kernels/parallel.h"

#include "thread_pool.h"

namespace qtune {

void parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t, int)>& fn) {
  if (threads <= 1 || tasks <= 1) {
    for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  detail::ThreadPool::global().parallel_for(tasks, threads, fn);
}

ScopedParallelRunner::ScopedParallelRunner(const ParallelRunner& runner) : previous_(detail::t_runner) {
  detail::t_runner = &runner;
}

ScopedParallelRunner::~ScopedParallelRunner() { detail::t_runner = previous_; }

}  // namespace qtune
