// A small persistent thread pool shared by the operators: workers are created once (lazily, up to
// the largest thread count asked for) and then reused, so a call never creates threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qtune::detail {

class ThreadPool {
 public:
  // The process-wide pool.
  static ThreadPool& global();

  // Runs fn(task, thread) for every task in [0, tasks) on up to `threads` threads, the calling
  // thread included (thread 0), handing out tasks dynamically; returns when all are done and
  // rethrows the first exception a task threw. One job runs at a time: concurrent callers wait
  // their turn. A call made from inside a task runs inline on that thread (no deadlock).
  void parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t, int)>& fn);

  ~ThreadPool();

 private:
  ThreadPool() = default;
  // Child side of fork(): see thread_pool.cc.
  void forget_workers_after_fork();
  void ensure_workers(int count);
  void worker_loop(int index);
  void run_tasks(int thread);

  std::mutex job_mutex_;  // serializes jobs
  std::mutex mutex_;      // guards everything below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  std::size_t generation_ = 0;
  // The current job.
  const std::function<void(std::size_t, int)>* fn_ = nullptr;
  std::size_t tasks_ = 0, next_task_ = 0;
  int participants_ = 0;  // workers (besides the caller) taking part
  int finished_ = 0;      // of those, how many are done
  std::exception_ptr error_;
};

}  // namespace qtune::detail
