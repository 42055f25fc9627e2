// Operators prepared by the runtime: the chosen configuration with the weights packed once,
// ready to run many times. They own everything they need (the Runtime may be destroyed first)
// and run() is const and thread-safe: one prepared operator may run from several threads at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <variant>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"
#include "qtune/runtime/selection.h"

namespace qtune::libraries {
class LibraryGemm;
class LibraryConv2d;
}  // namespace qtune::libraries

namespace qtune::runtime {

// A GEMM computed by qtune's kernels or, where the tuning chose one, by a vendor library
// (bit-exact either way; see qtune/libraries/library_ops.h).
class PreparedGemm {
 public:
  PreparedGemm(GemmOp op, Selection selection);
  PreparedGemm(std::shared_ptr<const libraries::LibraryGemm> op, std::string library, GemmProblem problem,
               Selection selection);

  // A: M x K (u8/s8) with row stride lda >= K; C: M x N of the output type with row stride
  // ldc >= N (elements). std::invalid_argument for null pointers or short strides.
  void run(const void* a, std::size_t lda, void* c, std::size_t ldc) const;

  const Selection& selection() const { return selection_; }
  const GemmProblem& problem() const;
  // The library computing the layer ("onednn"), "" when qtune's kernels do.
  const std::string& library() const { return library_; }
  // qtune's kernel configuration and operator; std::logic_error for a library layer.
  const GemmConfig& config() const;
  const GemmOp& op() const;

 private:
  std::variant<GemmOp, std::shared_ptr<const libraries::LibraryGemm>> op_;
  std::string library_;
  GemmProblem library_problem_;  // the problem of a library layer (a GemmOp holds its own)
  Selection selection_;
};

// A convolution computed by qtune's kernels or, where the tuning chose one, by a vendor library
// (bit-exact either way; see qtune/libraries/library_ops.h).
class PreparedConv2d {
 public:
  PreparedConv2d(Conv2dOp op, Selection selection);
  PreparedConv2d(std::shared_ptr<const libraries::LibraryConv2d> op, std::string library, Conv2dProblem problem,
                 Selection selection);

  // Dense NHWC input and output. std::invalid_argument for null pointers.
  void run(const void* input, void* output) const;

  const Selection& selection() const { return selection_; }
  const Conv2dProblem& problem() const;
  // The library computing the layer ("onednn"), "" when qtune's kernels do.
  const std::string& library() const { return library_; }
  // qtune's kernel configuration and operator; std::logic_error for a library layer.
  const Conv2dConfig& config() const;
  const Conv2dOp& op() const;

 private:
  std::variant<Conv2dOp, std::shared_ptr<const libraries::LibraryConv2d>> op_;
  std::string library_;
  Conv2dProblem library_problem_;  // the problem of a library layer (a Conv2dOp holds its own)
  Selection selection_;
};

}  // namespace qtune::runtime
