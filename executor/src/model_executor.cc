#include "qtune/executor/model_executor.h"

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "compiled_model.h"
#include "layout_ops.h"

namespace qtune::executor {
namespace {

std::string shape_in_brackets(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

// Every slot's first byte for one run, in the compiled model's frame: its vectors are kept across
// runs (docs/model-executor.md, "Working buffers kept across runs").
const Frame& frame_of(const ModelExecutor::Compiled& c, const void* const* inputs) {
  Frame& f = c.frame;
  f.at.resize(c.slots.size());
  std::uint8_t* arena = c.arena();
  for (std::size_t i = 0; i < c.slots.size(); ++i) {
    const Slot& s = c.slots[i];
    if (s.graph_input >= 0) f.at[i] = const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(inputs[s.graph_input]));
    else if (s.view_of >= 0) f.at[i] = f.at[static_cast<std::size_t>(s.view_of)];
    else f.at[i] = arena + c.buffer_offsets[static_cast<std::size_t>(s.buffer)];
  }
  f.scratch.assign(c.steps.size(), nullptr);
  for (std::size_t i = 0; i < c.steps.size(); ++i) {
    if (c.steps[i].scratch_buffer >= 0) f.scratch[i] = arena + c.buffer_offsets[static_cast<std::size_t>(c.steps[i].scratch_buffer)];
  }
  return f;
}

void copy_outputs(const ModelExecutor::Compiled& c, const Frame& f, void* const* outputs) {
  for (std::size_t i = 0; i < c.output_slots.size(); ++i) {
    const Slot& s = c.slots[static_cast<std::size_t>(c.output_slots[i])];
    const std::uint8_t* from = f.at[static_cast<std::size_t>(c.output_slots[i])];
    if (s.nhwc) nhwc_to_nchw(from, outputs[i], s.shape[0], s.shape[1], s.shape[2], s.shape[3], onnx_import::element_bytes(s.type));
    else std::memcpy(outputs[i], from, s.bytes);
  }
}

}  // namespace

std::uint8_t* ModelExecutor::Compiled::arena() const {
  // 64-byte aligned inside the storage (which holds 64 bytes more than the plan).
  const auto address = reinterpret_cast<std::uintptr_t>(arena_storage.data());
  return arena_storage.data() + ((64 - address % 64) % 64);
}

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return n;
}

std::size_t TensorInfo::bytes() const {
  std::size_t n = onnx_import::element_bytes(type);
  for (const std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

ModelExecutor::ModelExecutor(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
ModelExecutor::ModelExecutor(ModelExecutor&&) noexcept = default;
ModelExecutor& ModelExecutor::operator=(ModelExecutor&&) noexcept = default;
ModelExecutor::~ModelExecutor() = default;

ModelExecutor ModelExecutor::load(const std::string& path, const runtime::Runtime& runtime, ExecutorOptions options) {
  onnx_import::ModelGraph graph = onnx_import::read_model_graph(path, options.import);
  return compile(std::move(graph), runtime, std::move(options));
}

ModelExecutor ModelExecutor::compile(onnx_import::ModelGraph graph, const runtime::Runtime& runtime, ExecutorOptions options) {
  if (options.threads < 1) throw std::invalid_argument("the thread budget must be >= 1, got " + std::to_string(options.threads));
  auto compiled = std::make_unique<Compiled>();
  compiled->graph = std::move(graph);
  compile_steps(*compiled, runtime, options);
  plan_buffers(*compiled);
  return ModelExecutor(std::move(compiled));
}

const std::vector<TensorInfo>& ModelExecutor::inputs() const { return compiled_->inputs; }
const std::vector<TensorInfo>& ModelExecutor::outputs() const { return compiled_->outputs; }
const std::vector<StepInfo>& ModelExecutor::steps() const { return compiled_->step_infos; }
const ArenaReport& ModelExecutor::arena() const { return compiled_->report; }
const onnx_import::ModelGraph& ModelExecutor::graph() const { return compiled_->graph; }

std::vector<Tensor> ModelExecutor::run(const std::map<std::string, Tensor>& inputs) const {
  std::vector<const void*> in;
  for (const TensorInfo& info : compiled_->inputs) {
    const auto it = inputs.find(info.name);
    if (it == inputs.end()) throw std::invalid_argument("input '" + info.name + "' is not given");
    const Tensor& t = it->second;
    if (t.type != info.type)
      throw std::invalid_argument("input '" + info.name + "' is " + onnx_import::element_type_name(t.type) + ", the model takes " +
                                  onnx_import::element_type_name(info.type));
    if (t.shape != info.shape)
      throw std::invalid_argument("input '" + info.name + "' has shape " + shape_in_brackets(t.shape) + ", the model takes " + shape_in_brackets(info.shape));
    if (t.bytes.size() != info.bytes())
      throw std::invalid_argument("input '" + info.name + "' holds " + std::to_string(t.bytes.size()) + " bytes, its shape needs " +
                                  std::to_string(info.bytes()));
    in.push_back(t.bytes.data());
  }
  for (const auto& [name, tensor] : inputs) {
    bool known = false;
    for (const TensorInfo& info : compiled_->inputs) known = known || info.name == name;
    if (!known) throw std::invalid_argument("'" + name + "' is not an input of the model");
  }
  std::vector<Tensor> out;
  std::vector<void*> pointers;
  out.reserve(compiled_->outputs.size());
  for (const TensorInfo& info : compiled_->outputs) {
    out.push_back({info.type, info.shape, std::vector<std::uint8_t>(info.bytes())});
    pointers.push_back(out.back().bytes.data());
  }
  run(in.data(), pointers.data());
  return out;
}

void ModelExecutor::run(const void* const* inputs, void* const* outputs) const {
  const std::lock_guard<std::mutex> lock(compiled_->mutex);
  const Frame& f = frame_of(*compiled_, inputs);
  for (const Step& step : compiled_->steps) step.run(f);
  copy_outputs(*compiled_, f, outputs);
}

void ModelExecutor::run_profiled(const void* const* inputs, void* const* outputs, std::vector<double>& step_ns) const {
  const std::lock_guard<std::mutex> lock(compiled_->mutex);
  step_ns.resize(compiled_->steps.size(), 0.0);
  const Frame& f = frame_of(*compiled_, inputs);
  for (std::size_t i = 0; i < compiled_->steps.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    compiled_->steps[i].run(f);
    step_ns[i] += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  }
  copy_outputs(*compiled_, f, outputs);
}

}  // namespace qtune::executor
