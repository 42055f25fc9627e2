// A residual block's last convolution with the quantized Add after it, as one step: the
// convolution is computed in strips of output rows, each strip's requantized output goes to a
// per-thread buffer the size of a few cache lines' worth of rows, and is added to the skip tensor
// at once. The convolution's output tensor is never written whole, nor read back by the Add.
//
// The arithmetic is the two operations' own (the convolution's requantization, then QLinearAdd's),
// so the result equals the unfused steps bit for bit. Only pointwise convolutions (1x1, stride 1,
// no padding: ResNet-50's and MobileNetV2's block ends) are split, since their strip of output
// rows reads exactly the same strip of input rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "qtune/kernels/conv2d.h"
#include "qtune/onnx_import/model_graph.h"

namespace qtune::executor {

// Strips of whole image rows (over batch x height), every strip as tall.
struct ConvStrips {
  std::int64_t rows = 0;    // image rows per strip
  std::int64_t strips = 0;  // strips over the batch's rows
};

// The strip height for `conv` (pointwise): the tallest of two strips or more whose output stays
// within `target_bytes`, yet at least `min_pixels` output pixels (the GEMM rows one strip runs; fewer would reread the
// packed weights for too little work); the height divides batch x height, so every strip takes the
// same prepared kernel. nullopt where no height gives two strips or more, or the convolution is
// not pointwise.
std::optional<ConvStrips> plan_conv_strips(const Conv2dProblem& conv, std::size_t target_bytes, std::int64_t min_pixels);

class FusedConvAdd {
 public:
  // The convolution of `config` (qtune's kernels) prepared for one strip on one thread; the Add's
  // quantizations in its input order (`conv_first`: the convolution's output is its first input).
  FusedConvAdd(const Conv2dProblem& conv, const Conv2dConfig& config, const std::int8_t* weights,
               const std::int32_t* bias, ConvStrips strips, bool conv_first, onnx_import::Quantization qa,
               onnx_import::Quantization qb, onnx_import::Quantization qc);

  // Per-thread strip buffers for up to `threads` threads.
  std::size_t scratch_bytes(int threads) const { return static_cast<std::size_t>(threads) * strip_out_bytes_; }
  const ConvStrips& strips() const { return strips_; }
  const Conv2dConfig& config() const { return strip_conv_.config(); }

  // conv_input NHWC; skip and out NHWC of the convolution's output shape (out may be skip);
  // scratch holds scratch_bytes(threads). T: the Add's element type.
  template <typename T>
  void run(const void* conv_input, const T* skip, T* out, std::uint8_t* scratch, int threads) const;

 private:
  Conv2dOp strip_conv_;
  ConvStrips strips_;
  std::size_t strip_in_bytes_ = 0, strip_out_bytes_ = 0;
  bool conv_first_ = true;
  onnx_import::Quantization qa_, qb_, qc_;
};

}  // namespace qtune::executor
