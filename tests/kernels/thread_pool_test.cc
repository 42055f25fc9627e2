// The shared thread pool: every task runs once, errors propagate, and a process forked after the
// pool started its workers (the measurer's worker process) can still run parallel jobs.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/src/platform/thread_pool.h"

namespace qtune::detail {
namespace {

// Runs `tasks` tasks on `threads` threads and returns how often each task ran.
std::vector<int> run_counting(std::size_t tasks, int threads) {
  std::vector<std::atomic<int>> counts(tasks);
  ThreadPool::global().parallel_for(tasks, threads, [&](std::size_t task, int) { counts[task].fetch_add(1); });
  std::vector<int> result;
  for (auto& c : counts) result.push_back(c.load());
  return result;
}

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  for (int threads : {1, 2, 3}) {
    for (std::size_t tasks : {1u, 2u, 7u, 100u}) {
      EXPECT_EQ(run_counting(tasks, threads), std::vector<int>(tasks, 1)) << tasks << " tasks, " << threads << " threads";
    }
  }
}

// Each thread runs its own equal range of tasks in order, then takes what is left of the others'
// from their ends: on two threads, 0 1 2 ... then 99 98 ..., and 50 51 ... then 49 48 ... (on three,
// two thieves may share a range's end). Whatever the timing: a thread that starts late finds part
// or all of its range taken from the back.
TEST(ThreadPool, ThreadsRunContiguousRunsOfTasks) {
  for (int threads : {2, 3}) {
    const std::size_t tasks = 100;
    std::vector<std::vector<std::size_t>> order(static_cast<std::size_t>(threads));
    ThreadPool::global().parallel_for(tasks, threads, [&](std::size_t task, int thread) {
      order[static_cast<std::size_t>(thread)].push_back(task);
    });
    std::vector<int> ran(tasks, 0);
    const auto range_begin = [&](std::size_t t) { return tasks * t / order.size(); };
    const auto owner = [&](std::size_t task) {  // the thread whose range holds task
      std::size_t t = 0;
      while (task >= range_begin(t + 1)) ++t;
      return t;
    };
    for (std::size_t t = 0; t < order.size(); ++t) {
      const std::size_t own_begin = range_begin(t), own_end = range_begin(t + 1);
      const std::vector<std::size_t>& seq = order[t];
      std::size_t i = 0;
      for (; i < seq.size() && seq[i] >= own_begin && seq[i] < own_end; ++i) {
        EXPECT_EQ(seq[i], own_begin + i) << "thread " << t << " of " << threads << ": its own tasks in order";
      }
      for (; i < seq.size(); ++i) {
        EXPECT_FALSE(seq[i] >= own_begin && seq[i] < own_end) << "thread " << t << " came back to its own range";
        if (i > 0 && owner(seq[i - 1]) != t && owner(seq[i - 1]) == owner(seq[i])) {
          EXPECT_LT(seq[i], seq[i - 1]) << "thread " << t << ": another's tasks from the back";
        }
      }
      for (std::size_t task : seq) ++ran[task];
    }
    EXPECT_EQ(ran, std::vector<int>(tasks, 1));
  }
}

TEST(ThreadPool, RethrowsTheTasksException) {
  EXPECT_THROW(ThreadPool::global().parallel_for(8, 2,
                                                 [](std::size_t task, int) {
                                                   if (task == 5) throw std::runtime_error("task 5 failed");
                                                 }),
               std::runtime_error);
  EXPECT_EQ(run_counting(4, 2), std::vector<int>(4, 1)) << "the pool must stay usable after an error";
}

TEST(ThreadPool, ForkedChildRunsParallelJobs) {
  ASSERT_EQ(run_counting(16, 2), std::vector<int>(16, 1));  // the parent now has a worker thread
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a hang (waiting for the parent's workers) becomes SIGALRM, not a stuck test
    const bool ok = run_counting(16, 2) == std::vector<int>(16, 1) && run_counting(3, 3) == std::vector<int>(3, 1);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(run_counting(5, 2), std::vector<int>(5, 1)) << "the parent's pool is unaffected";
}

}  // namespace
}  // namespace qtune::detail
