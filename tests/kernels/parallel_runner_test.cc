// ScopedParallelRunner: while one lives, the kernels' parallel work of this thread goes to the
// runner (another engine's workers, onnxruntime's in libqtune_onnxruntime.so) with the thread count
// asked for; work a task starts runs inline; exceptions come back; other threads and the time
// after the scope use qtune's own pool again. And an operator run through a runner computes what
// it computes on the pool.
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/parallel.h"

namespace qtune {
namespace {

// A runner on threads of its own, that counts its jobs and records the thread counts asked for.
struct CountingRunner {
  std::atomic<int> jobs{0};
  std::vector<int> threads_asked;
  std::mutex mutex;
  ParallelRunner runner = [this](std::size_t tasks, int threads, const std::function<void(std::size_t)>& task) {
    ++jobs;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      threads_asked.push_back(threads);
    }
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([&, t] {
        for (std::size_t i = static_cast<std::size_t>(t); i < tasks; i += static_cast<std::size_t>(threads)) task(i);
      });
    for (std::size_t i = 0; i < tasks; i += static_cast<std::size_t>(threads)) task(i);
    for (auto& w : workers) w.join();
  };
};

TEST(ParallelRunner, TakesTheParallelWorkOfItsThreadWhileItLives) {
  CountingRunner counting;
  std::vector<std::atomic<int>> runs(10);
  {
    const ScopedParallelRunner scope(counting.runner);
    parallel_for(10, 3, [&](std::size_t task, int thread) {
      EXPECT_EQ(thread, 0);
      runs[task].fetch_add(1);
    });
    // One task or one thread: inline, the runner is not asked.
    parallel_for(1, 3, [](std::size_t, int) {});
    parallel_for(5, 1, [](std::size_t, int) {});
  }
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_EQ(counting.jobs.load(), 1);
  EXPECT_EQ(counting.threads_asked, std::vector<int>{3});
  // After the scope, and on other threads meanwhile, qtune's own pool runs the work.
  parallel_for(10, 2, [](std::size_t, int) {});
  EXPECT_EQ(counting.jobs.load(), 1);
}

TEST(ParallelRunner, WorkATaskStartsRunsInline) {
  CountingRunner counting;
  std::atomic<int> inner{0};
  const ScopedParallelRunner scope(counting.runner);
  parallel_for(4, 2, [&](std::size_t, int) { parallel_for(3, 2, [&](std::size_t, int) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 12);
  EXPECT_EQ(counting.jobs.load(), 1);
}

TEST(ParallelRunner, RethrowsATasksExceptionOnTheCaller) {
  CountingRunner counting;
  const ScopedParallelRunner scope(counting.runner);
  EXPECT_THROW(parallel_for(6, 2,
                            [](std::size_t task, int) {
                              if (task == 3) throw std::runtime_error("task 3 failed");
                            }),
               std::runtime_error);
}

TEST(ParallelRunner, ScopesNest) {
  CountingRunner outer, inner;
  const ScopedParallelRunner a(outer.runner);
  {
    const ScopedParallelRunner b(inner.runner);
    parallel_for(4, 2, [](std::size_t, int) {});
  }
  parallel_for(4, 2, [](std::size_t, int) {});
  EXPECT_EQ(inner.jobs.load(), 1);
  EXPECT_EQ(outer.jobs.load(), 1);
}

// A convolution split over two threads gives the same bytes on a runner as on the pool.
TEST(ParallelRunner, AConvolutionOnARunnerEqualsItOnThePool) {
  Conv2dProblem p;
  p.in_h = p.in_w = 20;
  p.in_c = 24;
  p.out_c = 40;
  p.kernel_h = p.kernel_w = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  p.a_type = DType::u8;
  p.a_zero_point = 7;
  p.out_type = DType::u8;
  p.requant = RequantParams::make(RoundingMode::fp32, {0.0013}, 3, 0, 255);
  std::vector<std::uint8_t> input(static_cast<std::size_t>(p.in_h * p.in_w * p.in_c));
  std::vector<std::int8_t> weights(static_cast<std::size_t>(9 * p.in_c * p.out_c));
  std::vector<std::int32_t> bias(static_cast<std::size_t>(p.out_c));
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i * 37 + 11);
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<std::int8_t>(i * 53 + 5);
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<std::int32_t>(i * 101) - 2000;
  Conv2dConfig config = conv2d_default_config(p);
  config.gemm.threads = 2;
  ASSERT_EQ(conv2d_check_config(p, config), "");
  const Conv2dOp op = Conv2dOp::prepare(p, config, weights.data(), bias.data());
  const std::size_t out_bytes = static_cast<std::size_t>(p.out_h() * p.out_w() * p.out_c);
  std::vector<std::uint8_t> on_pool(out_bytes), on_runner(out_bytes, 0xAA);
  op.run(input.data(), on_pool.data());
  CountingRunner counting;
  {
    const ScopedParallelRunner scope(counting.runner);
    op.run(input.data(), on_runner.data());
  }
  EXPECT_GT(counting.jobs.load(), 0);
  EXPECT_EQ(on_pool, on_runner);
}

}  // namespace
}  // namespace qtune
