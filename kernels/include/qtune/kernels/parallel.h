// The kernels' persistent thread pool for work outside them (the whole-model executor's
// elementwise operations and pools), so that everything of one model runs on the same warm
// workers instead of a second pool competing for the cores.
#pragma once

#include <cstddef>
#include <functional>

namespace qtune {

// Runs fn(task, thread) for every task in [0, tasks) on up to `threads` threads, the caller
// included; returns when all are done (rethrowing the first exception a task threw).
void parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t task, int thread)>& fn);

// Another engine's parallel-for: runs task(i) for every i in [0, tasks) on up to `threads` of its
// threads, the caller included, and returns when all are done. `task` never throws.
using ParallelRunner =
    std::function<void(std::size_t tasks, int threads, const std::function<void(std::size_t)>& task)>;

// While one lives, the parallel work of the kernels (and of parallel_for) called from this thread
// runs on `runner` instead of qtune's own pool: inside an engine that has its own workers
// (onnxruntime's intra-op pool, for libqtune_onnxruntime.so), so that two pools do not compete for
// the cores. Work a task starts runs inline on its thread; the thread index a task is given is 0.
// Exceptions a task throws are rethrown on the calling thread (the first one).
class ScopedParallelRunner {
 public:
  explicit ScopedParallelRunner(const ParallelRunner& runner);
  ~ScopedParallelRunner();
  ScopedParallelRunner(const ScopedParallelRunner&) = delete;
  ScopedParallelRunner& operator=(const ScopedParallelRunner&) = delete;

 private:
  const ParallelRunner* previous_;
};

}  // namespace qtune
