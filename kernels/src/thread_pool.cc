#include "thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <new>

namespace qtune::detail {
namespace {
thread_local bool t_inside_pool_task = false;

// Handles of workers that a fork() left behind in the child (see forget_workers_after_fork).
// Kept reachable so that leak checkers do not report them.
std::vector<std::thread>* g_orphaned_workers = nullptr;
}  // namespace

ThreadPool& ThreadPool::global() {
  static ThreadPool pool;
  // The measurer forks worker processes from a parent that may already have run a parallel
  // operator; the child must not wait for workers that only exist in the parent.
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { global().forget_workers_after_fork(); });
    return true;
  }();
  (void)registered;
  return pool;
}

// After fork() only the forking thread exists. The workers' std::thread handles name threads of
// the parent (joining or destroying them would hang or terminate), and a worker may have held a
// mutex at the instant of the fork. So: park the handles where nobody touches them again, give
// the pool fresh synchronization objects, and let the next job start new workers.
void ThreadPool::forget_workers_after_fork() {
  if (!workers_.empty()) {
    if (g_orphaned_workers == nullptr) g_orphaned_workers = new std::vector<std::thread>;
    for (auto& w : workers_) g_orphaned_workers->push_back(std::move(w));
    workers_.clear();
  }
  new (&job_mutex_) std::mutex;
  new (&mutex_) std::mutex;
  new (&wake_) std::condition_variable;
  new (&done_) std::condition_variable;
  stopping_ = false;
  generation_ = 0;
  fn_ = nullptr;
  tasks_ = next_task_ = 0;
  participants_ = finished_ = 0;
  error_ = nullptr;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::ensure_workers(int count) {
  while (static_cast<int>(workers_.size()) < count) {
    const int index = static_cast<int>(workers_.size()) + 1;  // the caller is thread 0
    workers_.emplace_back([this, index] { worker_loop(index); });
  }
}

// Takes tasks until none is left. Called with mutex_ NOT held.
void ThreadPool::run_tasks(int thread) {
  t_inside_pool_task = true;
  for (;;) {
    std::size_t task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_task_ >= tasks_ || error_) break;
      task = next_task_++;
    }
    try {
      (*fn_)(task, thread);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
  t_inside_pool_task = false;
}

void ThreadPool::worker_loop(int index) {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index > participants_) continue;  // not needed for this job
    }
    run_tasks(index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++finished_;
    }
    done_.notify_all();
  }
}

void ThreadPool::parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t, int)>& fn) {
  if (tasks == 0) return;
  const int helpers = static_cast<int>(std::min<std::size_t>(tasks, static_cast<std::size_t>(std::max(threads, 1)))) - 1;
  if (helpers == 0 || t_inside_pool_task) {
    for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  std::lock_guard<std::mutex> job(job_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ensure_workers(helpers);
    fn_ = &fn;
    tasks_ = tasks;
    next_task_ = 0;
    participants_ = helpers;
    finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  run_tasks(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_ == participants_; });
    fn_ = nullptr;
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace qtune::detail
