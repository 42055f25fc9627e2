#include "platform/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <new>

namespace qtune::detail {

thread_local const ParallelRunner* t_runner = nullptr;

namespace {
thread_local bool t_inside_pool_task = false;

// Handles of workers that a fork() left behind in the child (see forget_workers_after_fork).
// Kept reachable so that leak checkers do not report them.
std::vector<std::thread>* g_orphaned_workers = nullptr;

constexpr std::uint64_t pack_range(std::uint64_t next, std::uint64_t end) { return end << 32 | next; }

// Takes the first (from_back: last) task of `bounds`' range; false where the range is empty.
bool take_task(std::atomic<std::uint64_t>& bounds, bool from_back, std::size_t& task) {
  std::uint64_t word = bounds.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t next = word & 0xffffffffu, end = word >> 32;
    if (next >= end) return false;
    const std::uint64_t taken = from_back ? end - 1 : next;
    const std::uint64_t rest = from_back ? pack_range(next, end - 1) : pack_range(next + 1, end);
    if (bounds.compare_exchange_weak(word, rest, std::memory_order_relaxed)) {
      task = static_cast<std::size_t>(taken);
      return true;
    }
  }
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() holds or the spin time is over; returns done().
template <class Done>
bool spin_until(Done done) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::microseconds(ThreadPool::kSpinMicroseconds);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (Clock::now() >= deadline) return done();
  }
}

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
  stopping_.store(false);
  job_.store(0);
  fn_ = nullptr;
  participants_ = 0;
  for (auto& range : ranges_) range.bounds.store(0);
  finished_.store(0);
  failed_.store(false);
  error_ = nullptr;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::ensure_workers(int count) {
  while (static_cast<int>(workers_.size()) < count) {
    const int index = static_cast<int>(workers_.size()) + 1;  // the caller is thread 0
    // The job word before the job being started is published: a new thread that only read job_
    // once it runs would take that job for one it had already seen.
    const std::uint64_t seen = job_.load(std::memory_order_relaxed);
    workers_.emplace_back([this, index, seen] { worker_loop(index, seen); });
  }
}

// Takes tasks until none is left: the thread's own range from the front, then the others' from the
// back (a thief and the owner then meet in the middle of the owner's range, not at every task).
void ThreadPool::run_tasks(int thread) {
  t_inside_pool_task = true;
  for (int i = 0; i < participants_ && !failed_.load(std::memory_order_relaxed); ++i) {
    const bool own = i == 0;
    std::atomic<std::uint64_t>& bounds = ranges_[(thread + i) % participants_].bounds;
    std::size_t task = 0;
    while (!failed_.load(std::memory_order_relaxed) && take_task(bounds, !own, task)) {
      try {
        (*fn_)(task, thread);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
      }
    }
  }
  t_inside_pool_task = false;
}

void ThreadPool::worker_loop(int index, std::uint64_t seen) {
  for (;;) {
    auto new_job = [&] { return stopping_.load(std::memory_order_acquire) || job_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(new_job)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, new_job);
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    seen = job_.load(std::memory_order_acquire);
    const int participants = static_cast<int>(seen & ((1u << kParticipantBits) - 1));
    if (index > participants) continue;  // not needed for this job
    run_tasks(index);
    if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == participants) {
      // The caller may be asleep: taking the mutex orders this notify after its predicate check.
      { std::lock_guard<std::mutex> lock(mutex_); }
      done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(std::size_t tasks, int threads, const std::function<void(std::size_t, int)>& fn) {
  if (tasks == 0) return;
  constexpr int kMaxHelpers = (1 << kParticipantBits) - 1;
  const int helpers = std::min(
      kMaxHelpers, static_cast<int>(std::min<std::size_t>(tasks, static_cast<std::size_t>(std::max(threads, 1)))) - 1);
  if (helpers == 0 || t_inside_pool_task) {
    for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  if (t_runner != nullptr) {
    run_on_runner(*t_runner, tasks, helpers + 1, fn);
    return;
  }
  // (Ranges hold task indices in half a word: a larger job runs as several.)
  for (std::size_t first = 0; first < tasks; first += kMaxTasksPerJob) {
    const std::size_t count = std::min(kMaxTasksPerJob, tasks - first);
    if (first == 0 && count == tasks) {
      run_job(tasks, helpers, fn);
    } else {
      run_job(count, helpers, [&](std::size_t task, int thread) { fn(first + task, thread); });
    }
  }
}

void ThreadPool::run_on_runner(const ParallelRunner& runner, std::size_t tasks, int threads,
                               const std::function<void(std::size_t, int)>& fn) {
  std::mutex error_mutex;
  std::exception_ptr error;
  runner(tasks, threads, [&](std::size_t task) {
    const bool was_inside = t_inside_pool_task;
    t_inside_pool_task = true;  // work the task starts runs inline
    try {
      fn(task, 0);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
    t_inside_pool_task = was_inside;
  });
  if (error) std::rethrow_exception(error);
}

void ThreadPool::run_job(std::size_t tasks, int helpers, const std::function<void(std::size_t, int)>& fn) {
  std::lock_guard<std::mutex> job(job_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ensure_workers(helpers);
    fn_ = &fn;
    participants_ = helpers + 1;
    const auto share_begin = [&](int thread) {
      return tasks * static_cast<std::size_t>(thread) / static_cast<std::size_t>(participants_);
    };
    for (int t = 0; t < participants_; ++t) {
      ranges_[t].bounds.store(pack_range(share_begin(t), share_begin(t + 1)), std::memory_order_relaxed);
    }
    finished_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    const std::uint64_t generation = (job_.load(std::memory_order_relaxed) >> kParticipantBits) + 1;
    job_.store(job_word(generation, helpers), std::memory_order_release);
  }
  wake_.notify_all();  // for workers that stopped spinning; cheap when nobody waits
  run_tasks(0);
  auto all_done = [&] { return finished_.load(std::memory_order_acquire) == helpers; };
  if (!spin_until(all_done)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, all_done);
  }
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = nullptr;
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace qtune::detail
