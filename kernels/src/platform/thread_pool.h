// A small persistent thread pool shared by the operators: workers are created once (lazily, up to
// the largest thread count asked for) and then reused, so a call never creates threads.
//
// Operators are short (a 256^3 GEMM on one core takes about as long as waking a sleeping thread
// through the kernel, a futex, in a VM: docs/measurements.md, "Thread pool"), so a wake-up per job
// would cost as much as the work. Between jobs the workers therefore spin for a while
// (kSpinMicroseconds) on an atomic job word before they sleep, as OpenMP runtimes and pthreadpool
// do, and the caller spins on the completion count the same way.
//
// Tasks are handed out in contiguous runs: each thread owns an equal range of the task indices and
// takes its own from the front; a thread whose range is empty takes the others' from the back. An
// operator's neighbouring tasks touch neighbouring memory (a GEMM's blocks of rows), and when the
// threads took alternate tasks from one counter, each core's prefetchers ran into the blocks of C
// the other core was writing: a layer in many small blocks then ran on two cores hardly faster
// than on one (docs/measurements.md, "Thread pool").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "qtune/kernels/parallel.h"

namespace qtune::detail {

// The runner of this thread's innermost ScopedParallelRunner, else null.
extern thread_local const ParallelRunner* t_runner;

class ThreadPool {
 public:
  // The process-wide pool.
  static ThreadPool& global();

  // Runs fn(task, thread) for every task in [0, tasks) on up to `threads` threads, the calling
  // thread included (thread 0), each thread its own run of tasks in index order, then what is left
  // of the others' (see above); returns when all are done and
  // rethrows the first exception a task threw. One job runs at a time: concurrent callers wait
  // their turn. A call made from inside a task runs inline on that thread (no deadlock).
  void parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t, int)>& fn);

  ~ThreadPool();

  // How long an idle worker (or a caller waiting for workers) spins before it sleeps.
  static constexpr int kSpinMicroseconds = 200;

 private:
  ThreadPool() = default;
  // Child side of fork(): see thread_pool.cc.
  void forget_workers_after_fork();
  void ensure_workers(int count);
  void worker_loop(int index, std::uint64_t seen);  // seen: the last job word before this worker existed
  void run_tasks(int thread);
  void run_job(std::size_t tasks, int helpers, const std::function<void(std::size_t, int)>& fn);
  // The job on another engine's workers (ScopedParallelRunner).
  static void run_on_runner(const ParallelRunner& runner, std::size_t tasks, int threads,
                            const std::function<void(std::size_t, int)>& fn);

  // A job is published as one word, generation << 8 | participants, so that a worker reads which
  // job it sees and whether it takes part in it in one atomic load.
  static constexpr int kParticipantBits = 8;
  static std::uint64_t job_word(std::uint64_t generation, int participants) {
    return generation << kParticipantBits | static_cast<std::uint64_t>(participants);
  }
  static constexpr int kMaxParticipants = 1 << kParticipantBits;

  // One thread's run of tasks, [next, end) packed in one word (next in the low half) so that the
  // owner's take from the front and a thief's from the back are one compare-and-swap each. On a
  // cache line of its own: the owner's takes stay in its core's cache until a thief comes.
  struct alignas(64) TaskRange {
    std::atomic<std::uint64_t> bounds{0};
  };
  static constexpr std::size_t kMaxTasksPerJob = 0xffffffffu;  // what half a word holds

  std::mutex job_mutex_;  // serializes jobs
  std::mutex mutex_;      // guards worker creation, sleeping/waking, error_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> job_{0};
  // The current job (written before job_ is published).
  const std::function<void(std::size_t, int)>* fn_ = nullptr;
  int participants_ = 0;
  TaskRange ranges_[kMaxParticipants];
  std::atomic<int> finished_{0};  // participating workers done with the current job
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

}  // namespace qtune::detail
