// A compiled model's run keeps its working buffers: after the first run (which sizes each
// thread's buffers) no step asks the heap for a kilobyte or more. Such a request, made after a
// library layer's many small frees, has glibc consolidate its fast bins first, which cost a
// global average pool more than its own arithmetic (docs/model-executor.md, "Working buffers kept
// across runs"). Counted through the C++ allocation functions, which this test binary replaces
// (they forward to malloc and free, as the standard library's own do).
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "qtune/executor/model_executor.h"
#include "onnxruntime_reference.h"
#include "scratch_dir.h"

namespace {

constexpr std::size_t kLargeRequest = 1024;
std::atomic<bool> counting{false};
std::atomic<long> large_requests{0};
std::atomic<std::size_t> largest_request{0};

void* allocate(std::size_t bytes) {
  if (counting.load(std::memory_order_relaxed) && bytes >= kLargeRequest) {
    large_requests.fetch_add(1, std::memory_order_relaxed);
    std::size_t seen = largest_request.load(std::memory_order_relaxed);
    while (bytes > seen && !largest_request.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
    }
  }
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}

}  // namespace

// Every form a delete below may receive memory from (the aligned forms are left to the library,
// new and delete alike): a sanitizer reports memory from its own operator new given to free().
void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t& tag) noexcept { return operator new(bytes, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

// One thread: every step runs on the calling thread, so the first run has sized every buffer the
// second one uses (on more threads, which worker runs which range may change between runs).
void expect_no_large_request_after_the_first_run(const std::string& build_arguments) {
  qtune::testing::ScratchDir dir;
  const std::string model = dir.file("model.onnx");
  qtune::testing::build(build_arguments + " " + model);
  if (::testing::Test::HasFatalFailure()) return;
  const qtune::runtime::Runtime runtime;
  qtune::executor::ExecutorOptions options;
  options.threads = 1;
  const auto executor = qtune::executor::ModelExecutor::load(model, runtime, options);
  std::vector<std::vector<std::uint8_t>> inputs, outputs;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const auto& info : executor.inputs()) {
    inputs.emplace_back(info.bytes(), std::uint8_t{0});
    in.push_back(inputs.back().data());
  }
  for (const auto& info : executor.outputs()) {
    outputs.emplace_back(info.bytes());
    out.push_back(outputs.back().data());
  }
  executor.run(in.data(), out.data());
  large_requests = 0;
  largest_request = 0;
  counting = true;
  executor.run(in.data(), out.data());
  counting = false;
  EXPECT_EQ(large_requests.load(), 0) << "the largest request: " << largest_request.load() << " bytes";
}

// Depthwise convolutions and the global average pool.
TEST(RunAllocations, MobileNetV2AsksTheHeapForNoLargeBufferAfterItsFirstRun) {
  expect_no_large_request_after_the_first_run("network mobilenet_v2 --form qoperator --image 96");
}

// Max and average pools, concatenations, the image's QuantizeLinear.
TEST(RunAllocations, InceptionV3AsksTheHeapForNoLargeBufferAfterItsFirstRun) {
  expect_no_large_request_after_the_first_run("network inception_v3 --form qdq --image 107");
}

}  // namespace
