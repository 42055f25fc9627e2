// A whole quantized ONNX model run by qtune: every operation of the graph (qtune/onnx_import/model_graph.h)
// compiled once, with each convolution and matrix product prepared by the runtime (tuned, nearest
// or default configuration, weights packed once) and every activation in one arena planned from
// the tensors' lifetimes. Images are held channels-last (NHWC) inside; inputs and outputs are in
// ONNX's layout (NCHW), as onnxruntime takes and gives them.
//
//   const auto runtime = qtune::runtime::Runtime::from_file("best.jsonl");
//   const auto model = qtune::executor::ModelExecutor::load("net.onnx", runtime, {.threads = 2});
//   std::vector<qtune::executor::Tensor> outputs = model.run({{"input", image}});
//
// Results equal onnxruntime's (CPU execution provider) element for element; docs/model-executor.md
// gives each operation's arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "qtune/onnx_import/model_graph.h"
#include "qtune/runtime/runtime.h"

namespace qtune::executor {

using onnx_import::ElementType;

// A dense tensor in ONNX's layout (row-major over `shape`).
struct Tensor {
  ElementType type = ElementType::u8;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;  // elements() * element_bytes(type), native byte order

  std::int64_t elements() const;
};

struct TensorInfo {
  std::string name;
  ElementType type = ElementType::u8;
  std::vector<std::int64_t> shape;
  std::size_t bytes() const;
};

struct ExecutorOptions {
  int threads = 1;                      // every operation's thread budget
  onnx_import::ImportOptions import;    // input shapes for dynamic dimensions
  // Whether a layer tuned best with a vendor library runs it. Automatic: at one thread yes; at
  // several, qtune's kernels (the best of them measured for the layer), because the library's
  // OpenMP threads spin for a while after each of its layers on the cores the next step's
  // workers need (docs/model-executor.md, "Threads").
  enum class Libraries : unsigned char { automatic, allowed, kernels_only } libraries = Libraries::automatic;
  // Extra graph tensors to return from run() after the graph's outputs (their names), for
  // comparing intermediates; they are kept out of the arena's reuse.
  std::vector<std::string> extra_outputs;
  // Fused blocks, each one step over strips of rows, bit-exact with the layers one by one:
  // inverted-residual blocks (a pointwise expansion, a depthwise convolution and a pointwise
  // projection, their intermediates in per-thread buffers), and a pointwise convolution whose
  // output only a quantized Add reads, with the Add (docs/model-executor.md, "Fused blocks").
  enum class Fusion : unsigned char {
    off,    // every operation by itself (`--no-fusion`)
    tuned,  // the blocks the tuning records measured fused as the records say (strip height, the
            // members' configurations); the others by their layers
    all,    // besides those, every other block fused by the executor's own plan (`--fusion`)
  } fusion = Fusion::tuned;
};

// One compiled step, for profiles and reports.
struct StepInfo {
  std::string name;     // the operation's (its main node's) name, or "<tensor> to NHWC" for a layout step
  std::string op_type;  // the ONNX op type, or "layout" for the conversions the executor adds
  std::string kind;     // onnx_import::to_string(GraphOpKind) or "layout"
  std::string selection;  // layers: the runtime's choice ("tuned", "nearest", "default") and its config
  bool fused = false;     // a block: several operations in one step ("conv+add", "inverted_residual")
};

struct ArenaReport {
  std::size_t arena_bytes = 0;       // the activations' arena
  std::size_t peak_live_bytes = 0;   // the largest sum of tensors live at one step
  std::size_t all_tensor_bytes = 0;  // every activation tensor and step scratch with its own buffer (no reuse)
  std::size_t scratch_bytes = 0;     // the largest step's scratch (planned inside the arena)
  std::size_t in_place_steps = 0;    // steps writing over an input that dies there
  std::size_t views = 0;             // tensors that share their producer's memory (reshapes)
};

class ModelExecutor {
 public:
  // Reads, checks and compiles the model (onnx_import::ModelError for a bad model,
  // std::invalid_argument for bad options).
  static ModelExecutor load(const std::string& path, const runtime::Runtime& runtime, ExecutorOptions options = {});
  static ModelExecutor compile(onnx_import::ModelGraph graph, const runtime::Runtime& runtime,
                               ExecutorOptions options = {});

  ModelExecutor(ModelExecutor&&) noexcept;
  ModelExecutor& operator=(ModelExecutor&&) noexcept;
  ~ModelExecutor();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;  // the graph's, then the extra outputs
  const std::vector<StepInfo>& steps() const;
  const ArenaReport& arena() const;
  const onnx_import::ModelGraph& graph() const;

  // Inputs by name (every graph input, of its type and shape); std::invalid_argument naming the
  // input and what is wrong. Returns the outputs in outputs() order.
  std::vector<Tensor> run(const std::map<std::string, Tensor>& inputs) const;

  // Caller-owned buffers in inputs() / outputs() order, each of TensorInfo::bytes(). Not
  // concurrent with another run on the same executor (each executor owns one arena).
  void run(const void* const* inputs, void* const* outputs) const;

  // As run(), adding each step's time in nanoseconds to step_ns (resized to steps().size()).
  void run_profiled(const void* const* inputs, void* const* outputs, std::vector<double>& step_ns) const;

  struct Compiled;

 private:
  explicit ModelExecutor(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace qtune::executor
