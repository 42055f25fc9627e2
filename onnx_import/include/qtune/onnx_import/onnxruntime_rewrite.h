// A quantized ONNX model rewritten for onnxruntime with qtune's custom-op library
// (`qtune export-onnx`, docs/onnxruntime-inside.md): every convolution and matrix product qtune
// computes, in either form (QOperator, or a QDQ group with its DequantizeLinear / Relu / Clip /
// QuantizeLinear), becomes one ai.qtune node carrying its workload and the configuration the
// runtime chose for it (qtune/onnxruntime_ops/node_format.h), with its weights in qtune's layout.
// A convolution's node works on NHWC: a Transpose on each side keeps the model's NCHW tensors, and
// onnxruntime's transpose optimizer removes the pairs that meet between two qtune nodes; the pools
// and adds between them are written in NHWC too, where onnxruntime's own passes would leave them
// NCHW (nhwc_operations.h).
// Every other node stays as it was; so do layers qtune reads but does not write as a node (int32 or
// float outputs, batched matrix products), each with the reason.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qtune/onnx_import/model.h"
#include "qtune/runtime/runtime.h"

namespace qtune::onnx_import {

struct RewriteOptions {
  ImportOptions import;
  // The thread budget the configurations are chosen for and the kernels run with: the session's
  // intra-op thread count.
  int threads = 1;
};

struct RewrittenLayer {
  std::string layer;    // the layer's name (its main node's)
  std::string op_type;  // the main node's op type before
  std::string qtune_op;  // QConv or QMatMul
  runtime::Selection selection;
};

struct KeptLayer {
  std::string layer, op_type, reason;
};

struct RewrittenModel {
  std::string bytes;  // the serialized ModelProto, checked by ONNX's checker
  std::vector<RewrittenLayer> moved;
  std::vector<KeptLayer> kept;
  std::size_t nodes_before = 0, nodes_after = 0;
  std::size_t nhwc_operations = 0;  // pools and adds written in NHWC next to the qtune nodes (nhwc_operations.h)
};

// ModelError for a model that cannot be read (read_model's errors) or a rewrite the checker
// refuses (a bug: the message names it).
RewrittenModel rewrite_for_onnxruntime(const std::string& path, const runtime::Runtime& runtime,
                                       const RewriteOptions& options = {});

}  // namespace qtune::onnx_import
