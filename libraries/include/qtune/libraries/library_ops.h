// Layers computed by a vendor library, bit-exact with qtune's reference for the layer's own
// rounding: the library computes the raw int32 dot products (no zero points, no bias, which
// oneDNN would apply in float), qtune adds the zero-point terms and the bias in wrapping int32 and
// finishes with its separate requantization pass. A library is offered for a layer only where
// this holds (library_*_unsupported() says why not elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune::libraries {

// A prepared GEMM: the library's primitive created and the weights reordered once. run() is const
// and thread-safe, with GemmOp::run's arguments.
class LibraryGemm {
 public:
  virtual ~LibraryGemm() = default;
  virtual void run(const void* a, std::size_t lda, void* c, std::size_t ldc) const = 0;
  // The library's own name of what runs, e.g. "brg:avx512_core_vnni".
  virtual const std::string& implementation() const = 0;
};

// A prepared convolution: dense NHWC input and output, as Conv2dOp::run. Const and thread-safe.
class LibraryConv2d {
 public:
  virtual ~LibraryConv2d() = default;
  virtual void run(const void* input, void* output) const = 0;
  virtual const std::string& implementation() const = 0;
};

// "" when `library` is available here and computes `problem` bit-exact, else why not.
std::string library_gemm_unsupported(std::string_view library, const GemmProblem& problem);
std::string library_conv2d_unsupported(std::string_view library, const Conv2dProblem& problem);

// Creates the library's primitive for `problem` on `threads` threads (expensive: once per layer).
// B is K x N with row stride ldb, weights HWIO as Conv2dOp::prepare takes them. Throws
// std::invalid_argument naming the reason where the library is unsupported for the problem.
std::unique_ptr<const LibraryGemm> prepare_library_gemm(std::string_view library, const GemmProblem& problem,
                                                        const std::int8_t* b, std::size_t ldb,
                                                        const std::int32_t* bias, int threads);
std::unique_ptr<const LibraryConv2d> prepare_library_conv2d(std::string_view library, const Conv2dProblem& problem,
                                                            const std::int8_t* weights, const std::int32_t* bias,
                                                            int threads);

}  // namespace qtune::libraries
