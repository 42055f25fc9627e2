// From the graph's operations to the executor's steps: the layout of every tensor (images
// channels-last, everything else in ONNX's order), the conversions between them where an
// operation needs the other, and each operation's kernel bound to its parameters.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "compiled_model.h"
#include "fused_conv_add.h"
#include "fused_inverted_residual.h"
#include "graph_chains.h"
#include "layout_ops.h"
#include "parallel_ranges.h"
#include "quantized_ops.h"
#include "qtune/runtime/workload_of.h"
#include "qtune/search_space/block_workload.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune::executor {
namespace {

using onnx_import::GraphOp;
using onnx_import::GraphOpKind;
using onnx_import::ModelGraph;

std::size_t bytes_of(ElementType type, const std::vector<std::int64_t>& shape) {
  std::size_t n = onnx_import::element_bytes(type);
  for (const std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

// NHWC and NCHW put the bytes of a rank-4 tensor in the same order when H*W or C is 1.
bool same_order(const std::vector<std::int64_t>& shape) {
  return shape.size() != 4 || shape[1] == 1 || shape[2] * shape[3] == 1;
}

// Elements per piece of an elementwise operation split over threads: far more than a wake-up costs.
constexpr std::size_t kElementGrain = 16384;

// A fused convolution's strip: its output within a quarter of the smallest L1 data cache of the
// targets (the skip and output strips pass beside it), and at least 64 GEMM rows, so that every
// strip's pass over the packed weights does enough work (docs/model-executor.md, "Fused blocks").
constexpr std::size_t kStripBytes = 12 * 1024;
constexpr std::int64_t kStripMinPixels = 64;

ImageShape image_of(const Slot& slot) {
  return {slot.shape[0], slot.shape[2], slot.shape[3], slot.shape[1]};
}

std::string selection_text(const runtime::Selection& s) {
  return std::string(runtime::to_string(s.source)) + " " + s.config_key;
}

class Compiler {
 public:
  Compiler(ModelExecutor::Compiled& c, const runtime::Runtime& runtime, const ExecutorOptions& options)
      : c_(c), runtime_(runtime), options_(options) {}

  void run() {
    const ModelGraph& g = c_.graph;
    if (options_.fusion != ExecutorOptions::Fusion::off) {
      const GraphUse use = graph_use(c_.graph, options_.extra_outputs);
      find_inverted_residuals(use);
      if (options_.fusion == ExecutorOptions::Fusion::all) find_fusable_adds(use);
    }
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const auto& t = g.tensor(g.inputs[i]);
      Slot slot = new_slot(t.name, t.type, t.shape, false);
      slot.graph_input = static_cast<int>(i);
      slot_of_[{t.name, false}] = add(slot);
      c_.inputs.push_back({t.name, t.type, t.shape});
    }
    for (const GraphOp& op : g.ops) compile(op);
    std::vector<std::string> outputs = g.outputs;
    outputs.insert(outputs.end(), options_.extra_outputs.begin(), options_.extra_outputs.end());
    for (const std::string& name : outputs) {
      if (!latest_.count(name)) throw std::invalid_argument("output '" + name + "' is not a tensor the model computes");
      const auto& t = g.tensor(name);
      c_.outputs.push_back({t.name, t.type, t.shape});
      c_.output_slots.push_back(latest_.at(name));
    }
  }

 private:
  Slot new_slot(const std::string& name, ElementType type, const std::vector<std::int64_t>& shape, bool nhwc) const {
    Slot s;
    s.name = name;
    s.type = type;
    s.shape = shape;
    s.nhwc = nhwc && shape.size() == 4 && !same_order(shape);
    s.bytes = bytes_of(type, shape);
    return s;
  }

  int add(Slot slot) {
    c_.slots.push_back(std::move(slot));
    return static_cast<int>(c_.slots.size()) - 1;
  }

  // The slot holding `name` in the wanted layout, adding a conversion step the first time.
  int read(const std::string& name, bool nhwc) {
    const int held = latest_.count(name) ? latest_.at(name) : slot_of_.at({name, false});
    const Slot slot = c_.slots[static_cast<std::size_t>(held)];  // a copy: adding a slot below moves them
    if (same_order(slot.shape) || slot.nhwc == nhwc) return held;
    const auto key = std::make_pair(name, nhwc);
    if (const auto it = slot_of_.find(key); it != slot_of_.end()) return it->second;
    const int converted = add(new_slot(name, slot.type, slot.shape, nhwc));
    Step step;
    step.info = {name + (nhwc ? " to NHWC" : " to NCHW"), "layout", "layout", ""};
    step.reads = {held};
    step.write = converted;
    const auto s = slot.shape;
    const std::size_t bytes = onnx_import::element_bytes(slot.type);
    step.run = [held, converted, s, bytes, nhwc](const Frame& f) {
      if (nhwc) nchw_to_nhwc(f.at[held], f.at[converted], s[0], s[1], s[2], s[3], bytes);
      else nhwc_to_nchw(f.at[held], f.at[converted], s[0], s[1], s[2], s[3], bytes);
    };
    c_.steps.push_back(std::move(step));
    slot_of_[key] = converted;
    return converted;
  }

  bool held_nhwc(const std::string& name) const {
    const auto it = latest_.find(name);
    const int slot = it != latest_.end() ? it->second : slot_of_.at({name, false});
    return c_.slots[static_cast<std::size_t>(slot)].nhwc;
  }

  int write(const GraphOp& op, bool nhwc) {
    const auto& t = c_.graph.tensor(op.output);
    const int slot = add(new_slot(t.name, t.type, t.shape, nhwc));
    latest_[t.name] = slot;
    slot_of_[{t.name, c_.slots[static_cast<std::size_t>(slot)].nhwc}] = slot;
    return slot;
  }

  void push(const GraphOp& op, std::vector<int> reads, int out, std::function<void(const Frame&)> run,
            bool elementwise = false, std::string selection = "") {
    Step step;
    step.info = {op.name, op.op_type, onnx_import::to_string(op.kind), std::move(selection)};
    step.reads = std::move(reads);
    step.write = out;
    if (elementwise) step.may_write_over = step.reads;
    step.run = std::move(run);
    c_.steps.push_back(std::move(step));
  }

  const Slot& slot(int index) const { return c_.slots[static_cast<std::size_t>(index)]; }

  runtime::LibraryUse library_use() const {
    switch (options_.libraries) {
      case ExecutorOptions::Libraries::allowed: return runtime::LibraryUse::allowed;
      case ExecutorOptions::Libraries::kernels_only: return runtime::LibraryUse::kernels_only;
      case ExecutorOptions::Libraries::automatic: break;
    }
    return options_.threads > 1 ? runtime::LibraryUse::kernels_only : runtime::LibraryUse::allowed;
  }

  void compile(const GraphOp& op) {
    switch (op.kind) {
      case GraphOpKind::layer: return layer(op);
      case GraphOpKind::add: return add_op(op);
      case GraphOpKind::concat: return concat(op);
      case GraphOpKind::max_pool:
      case GraphOpKind::average_pool:
      case GraphOpKind::global_average_pool: return pool(op);
      case GraphOpKind::reshape: return reshape(op);
      case GraphOpKind::transpose: return transpose_op(op);
      case GraphOpKind::requantize:
      case GraphOpKind::clamp: return requantize(op);
      case GraphOpKind::quantize: return quantize_op(op);
      case GraphOpKind::dequantize: return dequantize_op(op);
      case GraphOpKind::float_clamp: return float_clamp(op);
      case GraphOpKind::float_add: return float_add(op);
      case GraphOpKind::softmax:
      case GraphOpKind::qlinear_softmax: return softmax_op(op);
      case GraphOpKind::float_layer: return float_layer(op);
    }
    throw std::invalid_argument(op.name + " (" + op.op_type + "): the executor has no kernel for " + onnx_import::to_string(op.kind));
  }

  template <typename F>
  static void by_type(ElementType type, F&& f) {
    if (type == ElementType::s8) f(std::int8_t{});
    else f(std::uint8_t{});
  }

  void layer(const GraphOp& op) {
    const onnx_import::ModelLayer& layer = *op.layer;
    const std::int32_t* bias = layer.bias.empty() ? nullptr : layer.bias.data();
    if (layer.op == OpKind::conv2d) {
      auto prepared = std::make_shared<runtime::PreparedConv2d>(
          runtime_.prepare_conv2d(layer.conv, layer.weights.data(), bias, options_.threads, library_use()));
      if (const auto it = block_of_.find(op.output); it != block_of_.end()) return block_member(op, it->second, prepared);
      return conv(op, read(op.inputs[0], true), prepared);
    }
    layer_into(op, write(op, false));
  }

  // A convolution reading slot `in`, by itself (or deferred into the Add after it).
  void conv(const GraphOp& op, int in, const std::shared_ptr<runtime::PreparedConv2d>& prepared) {
    if (defer_into_add(op, *prepared, in)) return;
    const int out = write(op, true);
    const std::string selection = selection_text(prepared->selection());
    push(op, {in}, out, [prepared, in, out](const Frame& f) { prepared->run(f.at[in], f.at[out]); }, false, selection);
  }

  // An inverted-residual block: its member convolutions in order, the block's input slot and each
  // member's prepared kernel as compilation reaches them.
  struct Block {
    std::vector<const GraphOp*> members;
    int input = -1;
    std::vector<std::shared_ptr<runtime::PreparedConv2d>> prepared;
  };

  void find_inverted_residuals(const GraphUse& use) {
    for (std::vector<const GraphOp*>& chain : inverted_residual_chains(c_.graph, use)) {
      for (const GraphOp* member : chain) block_of_[member->output] = blocks_.size();
      blocks_.push_back({std::move(chain), -1, {}});
    }
  }

  // A member of an inverted-residual block: deferred until the last one, which runs them all as
  // one step where qtune's kernels compute each and the strips can be prepared, else one by one.
  void block_member(const GraphOp& op, std::size_t index, const std::shared_ptr<runtime::PreparedConv2d>& prepared) {
    Block& block = blocks_[index];
    const bool first = block.prepared.empty();
    if (first) block.input = read(op.inputs[0], true);
    block.prepared.push_back(prepared);
    if (&op != block.members.back()) return;
    if (!fused_block(block))
      for (std::size_t i = 0; i < block.members.size(); ++i)
        conv(*block.members[i], i == 0 ? block.input : read(block.members[i]->inputs[0], true), block.prepared[i]);
  }

  // The block fused as its tuning record says, else (under Fusion::all) by the executor's plan;
  // false where it runs as its layers.
  bool fused_block(const Block& block) {
    std::vector<BlockMember> members;
    BlockWorkload workload;
    for (std::size_t i = 0; i < block.members.size(); ++i) {
      if (!block.prepared[i]->library().empty()) return false;
      const onnx_import::ModelLayer& layer = *block.members[i]->layer;
      members.push_back({layer.conv, block.prepared[i]->config(), layer.weights.data(),
                         layer.bias.empty() ? nullptr : layer.bias.data()});
      workload.members.push_back(runtime::workload_of(layer.conv, options_.threads));
    }
    const bool expands = members.size() == 3;
    std::optional<BlockMember> expand;
    std::shared_ptr<const FusedInvertedResidual> fused;
    std::string selection;
    try {
      std::int64_t rows = 0;
      if (const std::optional<std::string> tuned = runtime_.tuned_block(workload.key())) {
        const BlockConfig config = BlockConfig::parse(*tuned, members.size());
        if (!config.fused) return false;
        const KnobSpace space = full_space(OpKind::conv2d);
        for (std::size_t i = 0; i < members.size(); ++i)
          members[i].config = to_conv2d_config(space.parse(config.member_configs[i]));
        rows = config.rows;
        selection = "tuned block " + *tuned;
      } else {
        if (options_.fusion != ExecutorOptions::Fusion::all) return false;
        for (std::size_t i = 0; i < block.members.size(); ++i)
          selection += (i ? " | " : "") + selection_text(block.prepared[i]->selection());
        rows = plan_inverted_residual_rows(expands ? &members[0].problem : nullptr, members[expands ? 1 : 0].problem,
                                           kInvertedResidualStripBytes, kInvertedResidualMinPixels, options_.threads);
        if (rows == 0) return false;
      }
      if (expands) expand = members[0];
      fused = std::make_shared<const FusedInvertedResidual>(expand, members[expands ? 1 : 0], members.back(), rows,
                                                            options_.threads);
    } catch (const std::invalid_argument&) {
      return false;  // a configuration this CPU or a strip cannot run: the layers run one by one
    }
    const GraphOp& last = *block.members.back();
    const int in = block.input;
    const int out = write(last, true);
    std::string name, op_type;
    for (std::size_t i = 0; i < block.members.size(); ++i) {
      name += (i ? "+" : "") + block.members[i]->name;
      op_type += (i ? "+" : "") + block.members[i]->op_type;
    }
    Step step;
    step.info = {name, op_type, "inverted_residual",
                 selection + " strips=" + std::to_string(fused->strips()) + "x" + std::to_string(fused->rows()), true};
    step.reads = {in};
    step.write = out;
    step.scratch_bytes = fused->scratch_bytes();
    const std::size_t index = c_.steps.size();
    step.run = [fused, in, out, index](const Frame& f) { fused->run(f.at[in], f.at[out], f.scratch[index]); };
    c_.steps.push_back(std::move(step));
    return true;
  }

  // The quantized Adds that may take the convolution before them: the Add is the only reader of
  // a pointwise convolution's output, which is no output of the run.
  void find_fusable_adds(const GraphUse& use) {
    for (const GraphOp& op : c_.graph.ops) {
      if (op.kind != GraphOpKind::add || op.inputs.size() != 2 || op.input_quantization.size() != 2) continue;
      for (const std::string& name : op.inputs) {
        const Conv2dProblem* conv = conv_of(use.producer_of(name));
        if (conv == nullptr || use.readers_of(name) != 1 || op.inputs[0] == op.inputs[1]) continue;
        if (!plan_conv_strips(*conv, kStripBytes, kStripMinPixels)) continue;
        fusable_add_of_[name] = &op;
        break;  // one convolution per Add
      }
    }
  }

  // A convolution the Add after it will run (fused_add_op), when qtune's kernels compute it.
  bool defer_into_add(const GraphOp& op, const runtime::PreparedConv2d& prepared, int in) {
    const auto it = fusable_add_of_.find(op.output);
    if (it == fusable_add_of_.end() || !prepared.library().empty()) return false;
    const GraphOp& add = *it->second;
    const onnx_import::ModelLayer& layer = *op.layer;
    const bool conv_first = add.inputs[0] == op.output;
    const auto strips = plan_conv_strips(layer.conv, kStripBytes, kStripMinPixels);
    try {
      pending_[op.output] = {&op, in, prepared.selection(),
                             std::make_shared<const FusedConvAdd>(
                                 layer.conv, prepared.config(), layer.weights.data(), layer.bias.empty() ? nullptr : layer.bias.data(),
                                 *strips, conv_first, add.input_quantization[0], add.input_quantization[1], add.output_quantization)};
    } catch (const std::invalid_argument&) {
      return false;  // the configuration cannot run a strip: the layers run one by one
    }
    return true;
  }

  // The Add with its deferred convolution, strip by strip; the output may take the skip's buffer.
  void fused_add_op(const GraphOp& op, const std::string& conv_output) {
    const PendingConv pending = pending_.at(conv_output);
    pending_.erase(conv_output);
    const std::string& skip_name = op.inputs[0] == conv_output ? op.inputs[1] : op.inputs[0];
    const int skip = read(skip_name, true);
    const int out = write(op, true);
    const int in = pending.input;
    const auto fused = pending.fused;
    Step step;
    step.info = {pending.conv->name + "+" + op.name, pending.conv->op_type + "+" + op.op_type, "conv+add",
                 selection_text(pending.selection) + " strips=" + std::to_string(fused->strips().strips) + "x" +
                     std::to_string(fused->strips().rows),
                 true};
    step.reads = {in, skip};
    step.write = out;
    step.may_write_over = {skip};
    step.scratch_bytes = fused->scratch_bytes(options_.threads);
    const std::size_t index = c_.steps.size();
    by_type(slot(out).type, [&](auto t) {
      using T = decltype(t);
      step.run = [fused, in, skip, out, index, threads = options_.threads](const Frame& f) {
        fused->run<T>(f.at[in], f.get<T>(skip), f.get<T>(out), f.scratch[index], threads);
      };
    });
    c_.steps.push_back(std::move(step));
  }

  // A matrix product writing `out`.
  void layer_into(const GraphOp& op, int out) {
    const onnx_import::ModelLayer& layer = *op.layer;
    const std::int32_t* bias = layer.bias.empty() ? nullptr : layer.bias.data();
    const int in = read(op.inputs[0], false);
    const GemmProblem& p = layer.gemm;
    std::vector<std::shared_ptr<runtime::PreparedGemm>> batches;
    const auto k = static_cast<std::size_t>(p.k), n = static_cast<std::size_t>(p.n), m = static_cast<std::size_t>(p.m);
    for (std::int64_t b = 0; b < layer.gemm_batches; ++b)
      batches.push_back(std::make_shared<runtime::PreparedGemm>(runtime_.prepare_gemm(
          p, layer.weights.data() + static_cast<std::size_t>(b) * k * n, n, bias, options_.threads, library_use())));
    const std::size_t out_bytes = p.out_type == DType::s32 ? 4 : 1;
    const std::string selection = selection_text(batches[0]->selection());
    push(op, {in}, out, [batches, in, out, k, n, m, out_bytes](const Frame& f) {
      for (std::size_t b = 0; b < batches.size(); ++b)
        batches[b]->run(f.at[in] + b * m * k, k, f.at[out] + b * m * n * out_bytes, n);
    }, false, selection);
  }

  // The int32 sums of the matrix product into a slot of their own, then scaled to float.
  void float_layer(const GraphOp& op) {
    GraphOp sums = op;
    sums.output = op.output + "/int32_sums";
    const auto& t = c_.graph.tensor(op.output);
    const int acc = add(new_slot(sums.output, ElementType::s32, t.shape, false));
    latest_[sums.output] = acc;
    layer_into(sums, acc);
    const int out = write(op, false);
    const auto n = static_cast<std::size_t>(op.layer->gemm.n);
    const std::size_t count = slot(out).bytes / 4;
    const auto scales = op.float_scales;
    const auto bias = op.float_bias;
    push(op, {acc}, out, [=](const Frame& f) {
      const std::int32_t* x = f.get<std::int32_t>(acc);
      float* y = f.get<float>(out);
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t column = i % n;
        const float scaled = static_cast<float>(x[i]) * scales[scales.size() == 1 ? 0 : column];
        y[i] = bias.empty() ? scaled : std::fma(static_cast<float>(x[i]), scales[scales.size() == 1 ? 0 : column], bias[column]);
      }
    });
  }

  void add_op(const GraphOp& op) {
    for (const std::string& name : op.inputs)
      if (pending_.count(name)) return fused_add_op(op, name);
    const bool nhwc = held_nhwc(op.inputs[0]);
    const int a = read(op.inputs[0], nhwc), b = read(op.inputs[1], nhwc);
    const int out = write(op, nhwc);
    const std::size_t count = slot(out).bytes;
    const auto qa = op.input_quantization[0], qb = op.input_quantization[1], qc = op.output_quantization;
    by_type(slot(out).type, [&](auto t) {
      using T = decltype(t);
      push(op, {a, b}, out, [=, threads = options_.threads](const Frame& f) {
        const T* x = f.get<T>(a);
        const T* z = f.get<T>(b);
        T* y = f.get<T>(out);
        parallel_ranges(count, kElementGrain, threads, [&](std::size_t begin, std::size_t end) {
          qlinear_add<T>(x + begin, z + begin, y + begin, end - begin, qa, qb, qc);
        });
      }, true);
    });
  }

  void concat(const GraphOp& op) {
    const auto& shape = c_.graph.tensor(op.output).shape;
    const bool nhwc = shape.size() == 4 && op.axis == 1;
    std::vector<int> ins;
    for (const std::string& name : op.inputs) ins.push_back(read(name, nhwc));
    const int out = write(op, nhwc);
    // Per input: a copy when its quantization is the output's (onnxruntime compares the float
    // scales with ==), else the table; the bytes of one input per outer index.
    struct Part {
      int slot;
      std::size_t inner;  // bytes per outer index
      bool copy;
      ByteTable table;
    };
    std::vector<Part> parts;
    const bool quantized_concat = op.op_type != "Concat" || !op.input_quantization.empty();
    const std::size_t element = onnx_import::element_bytes(slot(out).type);
    const std::int64_t axis = nhwc ? 3 : op.axis;  // in the held order
    const auto held_dims = [&](const Slot& s) {
      return s.nhwc ? std::vector<std::int64_t>{s.shape[0], s.shape[2], s.shape[3], s.shape[1]} : s.shape;
    };
    std::size_t outer = 1;
    const auto out_dims = nhwc ? std::vector<std::int64_t>{shape[0], shape[2], shape[3], shape[1]} : shape;
    for (std::int64_t d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(out_dims[static_cast<std::size_t>(d)]);
    for (std::size_t i = 0; i < ins.size(); ++i) {
      Part part{ins[i], 0, true, {}};
      const auto dims = held_dims(slot(ins[i]));
      part.inner = element;
      for (std::size_t d = static_cast<std::size_t>(axis); d < dims.size(); ++d) part.inner *= static_cast<std::size_t>(dims[d]);
      if (quantized_concat && i < op.input_quantization.size() && !(op.input_quantization[i] == op.output_quantization)) {
        part.copy = false;
        if (slot(out).type == ElementType::s8) part.table = requantize_table<std::int8_t>(op.input_quantization[i], op.output_quantization, -128, 127);
        else part.table = requantize_table<std::uint8_t>(op.input_quantization[i], op.output_quantization, 0, 255);
      }
      parts.push_back(part);
    }
    std::size_t out_inner = 0;
    for (const Part& p : parts) out_inner += p.inner;
    push(op, ins, out, [parts, outer, out, out_inner, threads = options_.threads](const Frame& f) {
      parallel_ranges(outer, std::max<std::size_t>(1, kElementGrain / std::max<std::size_t>(out_inner, 1)), threads, [&](std::size_t begin, std::size_t end) {
        std::uint8_t* y = f.at[out] + begin * out_inner;
        for (const Part& p : parts) {
          const std::uint8_t* x = f.at[p.slot] + begin * p.inner;
          if (!p.copy) apply_table_rows(x, p.inner, y, out_inner, end - begin, p.inner, p.table);
          else
            for (std::size_t o = 0; o < end - begin; ++o) std::memcpy(y + o * out_inner, x + o * p.inner, p.inner);
          y += p.inner;
        }
      });
    });
  }

  void pool(const GraphOp& op) {
    const int in = read(op.inputs[0], true);
    const int out = write(op, true);
    const ImageShape is = image_of(slot(in)), os = image_of(slot(out));
    const auto window = op.pool;
    const auto qx = op.input_quantization.empty() ? onnx_import::Quantization{} : op.input_quantization[0];
    const auto qy = op.output_quantization;
    // onnxruntime computes an average over the whole image, unpadded, as the global average.
    const bool global = op.kind == GraphOpKind::global_average_pool ||
                        (op.kind == GraphOpKind::average_pool && window.kernel_h == is.h && window.kernel_w == is.w &&
                         window.pad_top == 0 && window.pad_left == 0 && window.pad_bottom == 0 && window.pad_right == 0);
    if (op.kind == GraphOpKind::average_pool && (window.dilation_h != 1 || window.dilation_w != 1))
      throw std::invalid_argument(op.name + " (" + op.op_type + "): an average pool with dilations is not computed");
    if (slot(out).type == ElementType::f32) {
      const auto rows = static_cast<std::size_t>(os.n * os.h);
      const int threads = options_.threads;
      const bool max = op.kind == GraphOpKind::max_pool, whole = op.kind == GraphOpKind::global_average_pool;
      push(op, {in}, out, [=](const Frame& f) {
        if (whole) return float_global_average_pool_nhwc(f.get<float>(in), is, f.get<float>(out));
        parallel_ranges(rows, 1, threads, [&](std::size_t begin, std::size_t end) {
          const auto b = static_cast<std::int64_t>(begin), e = static_cast<std::int64_t>(end);
          if (max) max_pool_nhwc<float>(f.get<float>(in), is, f.get<float>(out), os, window, b, e);
          else float_average_pool_nhwc(f.get<float>(in), is, f.get<float>(out), os, window, b, e);
        });
      });
      return;
    }
    by_type(slot(out).type, [&](auto t) {
      using T = decltype(t);
      const auto rows = static_cast<std::size_t>(os.n * os.h);
      const int threads = options_.threads;
      if (op.kind == GraphOpKind::max_pool)
        push(op, {in}, out, [=](const Frame& f) {
          parallel_ranges(rows, 1, threads, [&](std::size_t begin, std::size_t end) {
            max_pool_nhwc<T>(f.get<T>(in), is, f.get<T>(out), os, window, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end));
          });
        });
      else if (global)
        push(op, {in}, out, [=](const Frame& f) { global_average_pool_nhwc<T>(f.get<T>(in), is, f.get<T>(out), qx, qy); });
      else {
        // Each thread keeps its ring of dequantized input rows in its part of the step's scratch.
        const std::size_t step = c_.steps.size();
        const std::size_t ring = average_pool_scratch_floats(is, window);
        const auto divisors = std::make_shared<const AveragePoolDivisors>(average_pool_divisors(window, qx, qy));
        push(op, {in}, out, [=](const Frame& f) {
          auto* scratch = reinterpret_cast<float*>(f.scratch[step]);
          parallel_ranges_per_thread(rows, 1, threads, [&](std::size_t begin, std::size_t end, int thread) {
            average_pool_nhwc<T>(f.get<T>(in), is, f.get<T>(out), os, window, qx, qy, *divisors,
                                 scratch + static_cast<std::size_t>(thread) * ring, static_cast<std::int64_t>(begin),
                                 static_cast<std::int64_t>(end));
          });
        });
        c_.steps.back().scratch_bytes = static_cast<std::size_t>(std::max(threads, 1)) * ring * sizeof(float);
      }
    });
  }

  void reshape(const GraphOp& op) {
    const int in = read(op.inputs[0], false);
    const auto& t = c_.graph.tensor(op.output);
    Slot view = new_slot(t.name, t.type, t.shape, false);
    view.view_of = in;
    const int out = add(view);
    latest_[t.name] = out;
    slot_of_[{t.name, false}] = out;
  }

  void transpose_op(const GraphOp& op) {
    const int in = read(op.inputs[0], false);
    const int out = write(op, false);
    const auto shape = slot(in).shape;
    const auto perm = op.permutation;
    if (shape.size() > max_transpose_rank)
      throw std::invalid_argument(op.name + " (Transpose): a rank-" + std::to_string(shape.size()) + " transpose, the executor moves up to rank " +
                                  std::to_string(max_transpose_rank));
    const std::size_t bytes = onnx_import::element_bytes(slot(in).type);
    push(op, {in}, out, [=](const Frame& f) { transpose(f.at[in], f.at[out], shape, perm, bytes); });
  }

  void requantize(const GraphOp& op) {
    const bool nhwc = held_nhwc(op.inputs[0]);
    const int in = read(op.inputs[0], nhwc);
    const int out = write(op, nhwc);
    ByteTable table;
    const auto from = op.input_quantization.empty() ? op.output_quantization : op.input_quantization[0];
    if (slot(in).type == ElementType::s8) table = requantize_table<std::int8_t>(from, op.output_quantization, op.clamp_min, op.clamp_max);
    else table = requantize_table<std::uint8_t>(from, op.output_quantization, op.clamp_min, op.clamp_max);
    const std::size_t count = slot(out).bytes;
    push(op, {in}, out, [=, threads = options_.threads](const Frame& f) {
      parallel_ranges(count, kElementGrain, threads, [&](std::size_t begin, std::size_t end) {
        apply_table(f.at[in] + begin, f.at[out] + begin, end - begin, table);
      });
    }, true);
  }

  void quantize_op(const GraphOp& op) {
    const int in = latest_.count(op.inputs[0]) ? latest_.at(op.inputs[0]) : slot_of_.at({op.inputs[0], false});
    const Slot source = slot(in);  // a copy: write() below adds a slot, which moves them
    // An image comes in as NCHW: quantized straight into the layout the convolutions read.
    const bool into_nhwc = source.shape.size() == 4 && !source.nhwc && !same_order(source.shape);
    const int out = write(op, source.nhwc || into_nhwc);
    const auto q = op.output_quantization;
    const std::size_t count = slot(out).bytes;
    const ImageShape image = source.shape.size() == 4 ? image_of(source) : ImageShape{};
    by_type(slot(out).type, [&](auto t) {
      using T = decltype(t);
      const int threads = options_.threads;
      if (into_nhwc) {
        const auto pixels = static_cast<std::size_t>(image.n * image.h * image.w);
        push(op, {in}, out, [=](const Frame& f) {
          parallel_ranges(pixels, kElementGrain / 4, threads, [&](std::size_t begin, std::size_t end) {
            quantize_nchw_to_nhwc<T>(f.get<float>(in), f.get<T>(out), image, q, static_cast<std::int64_t>(begin),
                                     static_cast<std::int64_t>(end));
          });
        });
      } else {
        push(op, {in}, out, [=](const Frame& f) {
          parallel_ranges(count, kElementGrain, threads, [&](std::size_t begin, std::size_t end) {
            quantize<T>(f.get<float>(in) + begin, f.get<T>(out) + begin, end - begin, q);
          });
        });
      }
    });
  }

  void dequantize_op(const GraphOp& op) {
    const bool nhwc = held_nhwc(op.inputs[0]);
    const int in = read(op.inputs[0], nhwc);
    const int out = write(op, nhwc);
    const auto q = op.input_quantization[0];
    const std::size_t count = slot(in).bytes;
    by_type(slot(in).type, [&](auto t) {
      using T = decltype(t);
      push(op, {in}, out, [=](const Frame& f) { dequantize<T>(f.get<T>(in), f.get<float>(out), count, q); });
    });
  }

  void float_clamp(const GraphOp& op) {
    const bool nhwc = held_nhwc(op.inputs[0]);
    const int in = read(op.inputs[0], nhwc);
    const int out = write(op, nhwc);
    const std::size_t count = slot(out).bytes / 4;
    const float lo = op.float_min, hi = op.float_max;
    push(op, {in}, out, [=](const Frame& f) {
      const float* x = f.get<float>(in);
      float* y = f.get<float>(out);
      for (std::size_t i = 0; i < count; ++i) y[i] = std::min(std::max(x[i], lo), hi);
    }, true);
  }

  void float_add(const GraphOp& op) {
    const bool nhwc = held_nhwc(op.inputs[0]);
    const int a = read(op.inputs[0], nhwc), b = read(op.inputs[1], nhwc);
    const int out = write(op, nhwc);
    const std::size_t count = slot(out).bytes / 4;
    push(op, {a, b}, out, [=](const Frame& f) {
      const float* x = f.get<float>(a);
      const float* z = f.get<float>(b);
      float* y = f.get<float>(out);
      for (std::size_t i = 0; i < count; ++i) y[i] = x[i] + z[i];
    }, true);
  }

  void softmax_op(const GraphOp& op) {
    const int in = read(op.inputs[0], false);
    const int out = write(op, false);
    const auto& shape = slot(in).shape;
    // Rows of `row` elements `inner` apart: before opset 13 every axis from `axis` on is one row;
    // from 13 on only `axis` is, the axes after it (inner) are rows of their own, as onnxruntime
    // computes them after moving the axis last.
    std::size_t outer = 1, row = 1, inner = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const auto dim = static_cast<std::size_t>(shape[d]);
      const auto axis = static_cast<std::size_t>(op.axis);
      if (d < axis) outer *= dim;
      else if (d == axis || op.softmax_opset < 13) row *= dim;
      else inner *= dim;
    }
    const auto qx = op.input_quantization.empty() ? onnx_import::Quantization{} : op.input_quantization[0];
    const auto qy = op.output_quantization;
    const bool is_float = op.kind == GraphOpKind::softmax;
    const ElementType type = slot(out).type;
    push(op, {in}, out, [=](const Frame& f) {
      const auto rows = [&](const std::uint8_t* x, std::uint8_t* y, std::size_t count) {
        if (is_float) softmax(reinterpret_cast<const float*>(x), reinterpret_cast<float*>(y), count, row);
        else if (type == ElementType::s8)
          qlinear_softmax<std::int8_t>(reinterpret_cast<const std::int8_t*>(x), reinterpret_cast<std::int8_t*>(y), count, row, qx, qy);
        else qlinear_softmax<std::uint8_t>(x, y, count, row, qx, qy);
      };
      if (inner == 1) {
        rows(f.at[in], f.at[out], outer);
        return;
      }
      const std::size_t bytes = is_float ? 4 : 1;
      std::vector<std::uint8_t> gathered(row * bytes), result(row * bytes);
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t i = 0; i < inner; ++i) {
          for (std::size_t r = 0; r < row; ++r)
            std::memcpy(&gathered[r * bytes], f.at[in] + ((o * row + r) * inner + i) * bytes, bytes);
          rows(gathered.data(), result.data(), 1);
          for (std::size_t r = 0; r < row; ++r)
            std::memcpy(f.at[out] + ((o * row + r) * inner + i) * bytes, &result[r * bytes], bytes);
        }
    });
  }

  ModelExecutor::Compiled& c_;
  const runtime::Runtime& runtime_;
  const ExecutorOptions& options_;
  std::map<std::pair<std::string, bool>, int> slot_of_;  // (tensor, nhwc) -> slot
  std::map<std::string, int> latest_;                    // tensor -> the slot its producer wrote
  // Fusion: convolution outputs whose only reader is an Add that may take them, and the
  // convolutions deferred to their Add's step (their input slot, the runtime's choice, the kernel).
  std::map<std::string, const GraphOp*> fusable_add_of_;
  struct PendingConv {
    const GraphOp* conv = nullptr;
    int input = -1;
    runtime::Selection selection;
    std::shared_ptr<const FusedConvAdd> fused;
  };
  std::map<std::string, PendingConv> pending_;
  std::vector<Block> blocks_;
  std::map<std::string, std::size_t> block_of_;  // every member's output tensor -> its block
};

}  // namespace

void compile_steps(ModelExecutor::Compiled& compiled, const runtime::Runtime& runtime, const ExecutorOptions& options) {
  Compiler(compiled, runtime, options).run();
  for (const Step& step : compiled.steps) compiled.step_infos.push_back(step.info);
}

}  // namespace qtune::executor
