// The compiled form of a model: the tensors as the executor holds them (slots), the steps in
// order, and where each slot's bytes are (a caller's input, an arena buffer, or a view of another).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "qtune/executor/model_executor.h"

namespace qtune::executor {

struct Slot {
  std::string name;
  ElementType type = ElementType::u8;
  std::vector<std::int64_t> shape;  // ONNX's dimensions
  bool nhwc = false;                // a rank-4 tensor held channels-last
  std::size_t bytes = 0;
  int graph_input = -1;             // index into the caller's inputs, or -1
  int view_of = -1;                 // a slot whose bytes this one shares (reshape), or -1
  int buffer = -1;                  // arena buffer (planned), for slots that own their bytes
};

// The pointers of one run: every slot's first byte.
struct Frame {
  std::vector<std::uint8_t*> at;
  std::vector<std::uint8_t*> scratch;  // per step: its scratch bytes in the arena (null: none)
  template <typename T>
  T* get(int slot) const {
    return reinterpret_cast<T*>(at[static_cast<std::size_t>(slot)]);
  }
};

struct Step {
  StepInfo info;
  std::vector<int> reads;
  int write = -1;
  std::vector<int> may_write_over;     // inputs whose buffer the output may take (elementwise in them)
  std::size_t scratch_bytes = 0;      // working memory live during the step only
  int scratch_buffer = -1;            // its arena buffer (planned)
  std::function<void(const Frame&)> run;
};

struct ModelExecutor::Compiled {
  onnx_import::ModelGraph graph;
  std::vector<Slot> slots;
  std::vector<Step> steps;
  std::vector<StepInfo> step_infos;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<int> output_slots;
  std::vector<std::size_t> buffer_offsets;
  ArenaReport report;
  mutable std::mutex mutex;  // one run at a time over the arena and the frame
  mutable Frame frame;       // the current run's pointers (model_executor.cc, frame_of)
  mutable std::vector<std::uint8_t, std::allocator<std::uint8_t>> arena_storage;
  std::uint8_t* arena() const;
};

// Builds the steps and slots of a graph (compile_steps.cc), then plans the arena (plan_buffers).
void compile_steps(ModelExecutor::Compiled& compiled, const runtime::Runtime& runtime, const ExecutorOptions& options);
void plan_buffers(ModelExecutor::Compiled& compiled);

}  // namespace qtune::executor
