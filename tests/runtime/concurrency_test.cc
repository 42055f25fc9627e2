// Prepared operators run concurrently from several threads with correct results, and one Runtime
// prepares layers from several threads at once (the fallback report and warnings stay consistent).
#include <gtest/gtest.h>

#include <thread>

#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

TEST(Concurrency, OnePreparedGemmRunsFromTwoThreads) {
  const Workload w = gemm_workload(80, 48, 200);
  const Runtime rt = Runtime::from_entries({{w.key(), current_target_key(), non_default_config(w).key(), 1.0}});
  const GemmCase layer(w);
  const PreparedGemm op = layer.prepare(rt, 1);
  ASSERT_EQ(op.selection().source, ConfigSource::tuned);

  // Each thread uses its own activations, so a data race between the runs would show as a wrong
  // result (and as a report under ThreadSanitizer / ASan).
  GemmCase other_input(w, 99);
  other_input.problem = layer.problem;  // same layer (quantization, weights), other activations
  other_input.b = layer.b;
  other_input.bias = layer.bias;
  const std::vector<std::uint8_t> expected[2] = {layer.reference(), other_input.reference()};
  std::vector<std::uint8_t> got[2];
  bool all_equal[2] = {true, true};
  auto worker = [&](int index) {
    const GemmCase& input = index == 0 ? layer : other_input;
    for (int repeat = 0; repeat < 20; ++repeat) {
      got[index] = input.run(op);
      all_equal[index] = all_equal[index] && got[index] == expected[index];
    }
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_TRUE(all_equal[0]);
  EXPECT_TRUE(all_equal[1]);
}

TEST(Concurrency, OnePreparedConvRunsFromTwoThreads) {
  const Workload w = conv_workload(10, 16, 24, 3, 1, 1);
  const Runtime rt;
  const ConvCase layer(w);
  const PreparedConv2d op = layer.prepare(rt, 2);  // the operator itself may use 2 threads
  const auto expected = layer.reference();
  bool ok[2] = {true, true};
  auto worker = [&](int index) {
    for (int repeat = 0; repeat < 10; ++repeat) ok[index] = ok[index] && layer.run(op) == expected;
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_TRUE(ok[0]);
  EXPECT_TRUE(ok[1]);
}

TEST(Concurrency, PreparingFromTwoThreadsKeepsOneReportLinePerLayer) {
  const Workload tuned = gemm_workload(64, 64, 64);
  WarningCollector warnings;
  std::mutex warnings_mutex;
  RuntimeOptions options;
  options.warning_sink = [&](const std::string& m) {
    std::lock_guard<std::mutex> lock(warnings_mutex);
    warnings.messages.push_back(m);
  };
  const Runtime rt = Runtime::from_entries({{tuned.key(), current_target_key(), non_default_config(tuned).key(), 1.0}},
                                           std::move(options));
  auto worker = [&](int seed) {
    for (int m = 16; m <= 128; m += 16) {
      const GemmCase layer(gemm_workload(m, 64, 64), static_cast<std::uint64_t>(seed));
      EXPECT_EQ(layer.run(layer.prepare(rt, 1)), layer.reference());
    }
  };
  std::thread t0(worker, 1), t1(worker, 2);
  t0.join();
  t1.join();
  EXPECT_EQ(rt.fallback_count(), 7u);  // 8 shapes, one of them tuned
}

}  // namespace
}  // namespace qtune::runtime
