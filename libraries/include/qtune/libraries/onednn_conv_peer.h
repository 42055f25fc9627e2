// oneDNN's int8 convolution as a same-run peer (`qtune bench --op conv2d`, `qtune run`), requantizing
// in oneDNN itself, as its users run it (the tuning candidate, which computes exactly, is
// onednn_conv2d.cc): u8/s8 NHWC input with a zero point, int8 weights, int32 bias, output u8/s8
// with output scales (per tensor or per channel) and a zero point, or s32. What oneDNN 2.6 cannot
// express (non-zero weight zero points, narrowed clamp bounds, rounding other than fp32) is
// reported by onednn_conv_unsupported(). Built only with oneDNN (QTUNE_HAVE_ONEDNN).
#pragma once

#include <memory>
#include <string>

#include "qtune/kernels/conv2d.h"

namespace qtune::libraries {

// "" when OnednnConv can run `problem`, else why not.
std::string onednn_conv_unsupported(const Conv2dProblem& problem);

// The layer as oneDNN 2.6 can run it, for timing it beside qtune: weight zero points dropped
// (symmetric weights) and clamp bounds widened to the output type. That changes the values, not
// the work, so the time is what a user of the library gets for this layer. `dropped` receives
// what was changed ("" when nothing).
Conv2dProblem onednn_conv_runnable(const Conv2dProblem& problem, std::string& dropped);

class OnednnConv {
 public:
  // Creates the primitive (oneDNN picks the implementation for this CPU, honouring
  // DNNL_MAX_CPU_ISA) and reorders the HWIO weights into its layout. Throws std::runtime_error
  // naming the reason when the problem is unsupported or oneDNN refuses it. `threads` is the
  // OpenMP thread count of every run(). Call run() once before timing: the first execution
  // includes oneDNN's JIT code generation.
  OnednnConv(const Conv2dProblem& problem, const std::int8_t* weights_hwio, const std::int32_t* bias, int threads = 1);
  ~OnednnConv();
  OnednnConv(const OnednnConv&) = delete;
  OnednnConv& operator=(const OnednnConv&) = delete;

  // Dense NHWC input and output, as Conv2dOp::run. Not thread-safe (one stream).
  void run(const void* input, void* output) const;

  // oneDNN's implementation name, e.g. "brg:avx512_core_amx_int8" or "jit_int8:avx2".
  std::string implementation() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace qtune::libraries
