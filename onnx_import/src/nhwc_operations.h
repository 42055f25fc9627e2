// The operations between qtune's nodes in a model rewritten for onnxruntime
// (onnxruntime_rewrite.h), written in NHWC. qtune's convolution nodes work on NHWC between two
// Transposes, and onnxruntime's transpose optimizer cancels the pairs that meet; but its own
// layout pass, which runs its pools on NHWC next to its own convolutions, leaves them NCHW next to
// qtune's, where its 8-bit MaxPool and QLinearAveragePool are many times slower, and it does not
// move Transposes through com.microsoft.QLinearAdd. So the rewrite writes them as onnxruntime's
// optimizer would have, each between Transposes that cancel against the convolutions':
//   MaxPool on 8 bits             -> com.microsoft.NhwcMaxPool
//   QLinearAveragePool            -> ai.qtune.QAveragePool (the executor's implementation of the
//                                    same arithmetic: onnxruntime's was a third of InceptionV3's
//                                    time), or channels_last = 1 where its parameters are not constant
//   QLinearGlobalAveragePool      -> channels_last = 1
//   QLinearAdd of two equal 4-D shapes -> the same, on NHWC tensors (it is elementwise)
// The QDQ form's DequantizeLinear -> MaxPool | AveragePool -> QuantizeLinear become the same
// quantized operators, as onnxruntime's QDQ fusions make them (a MaxPool only when its input and
// output quantization are equal, as onnxruntime requires to drop them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace qtune::onnx_import::detail {

// `qtune_outputs`: the tensors qtune's nodes write (8-bit) with their NCHW shapes; `threads`: the
// budget of qtune's pools; `fresh` makes an unused tensor or node name from a base. Returns how
// many operations were rewritten.
std::size_t operations_to_nhwc(onnx::GraphProto& graph, std::map<std::string, std::vector<std::int64_t>> qtune_outputs,
                               int threads, const std::function<std::string(const std::string&)>& fresh);

}  // namespace qtune::onnx_import::detail
