// Operators prepared by the runtime: the chosen configuration with the weights packed once,
// ready to run many times. They own everything they need (the Runtime may be destroyed first)
// and run() is const and thread-safe: one prepared operator may run from several threads at once.
#pragma once

#include <cstddef>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/runtime/selection.h"

namespace qtune::runtime {

class PreparedGemm {
 public:
  PreparedGemm(GemmOp op, Selection selection);

  // A: M x K (u8/s8) with row stride lda >= K; C: M x N of the output type with row stride
  // ldc >= N (elements). std::invalid_argument for null pointers or short strides.
  void run(const void* a, std::size_t lda, void* c, std::size_t ldc) const;

  const Selection& selection() const { return selection_; }
  const GemmProblem& problem() const { return op_.problem(); }
  const GemmConfig& config() const { return op_.config(); }
  const GemmOp& op() const { return op_; }

 private:
  GemmOp op_;
  Selection selection_;
};

class PreparedConv2d {
 public:
  PreparedConv2d(Conv2dOp op, Selection selection);

  // Dense NHWC input and output. std::invalid_argument for null pointers.
  void run(const void* input, void* output) const;

  const Selection& selection() const { return selection_; }
  const Conv2dProblem& problem() const { return op_.problem(); }
  const Conv2dConfig& config() const { return op_.config(); }
  const Conv2dOp& op() const { return op_; }

 private:
  Conv2dOp op_;
  Selection selection_;
};

}  // namespace qtune::runtime
