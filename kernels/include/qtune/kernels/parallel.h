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

}  // namespace qtune
