// oneDNN's int8 matmul as a same-run peer (`qtune bench`, `qtune run`, bench/gemm_bench.cc),
// requantizing in oneDNN itself, as its users run it (the exact tuning candidate is onednn_gemm.cc):
// u8 or s8 (M x K) x s8 (K x N) -> u8 or s8 with an output scale, or -> s32, on oneDNN's best CPU
// path (DNNL_VERBOSE=1 prints which). Built only with oneDNN (QTUNE_HAVE_ONEDNN).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "qtune/kernels/quant.h"

namespace qtune::libraries {

class OnednnMatmul {
 public:
  // Creates the primitive and its (random) operands, then runs it once: the first execution
  // includes oneDNN's JIT code generation, which must not be timed. out_type is u8, s8 or s32;
  // `threads` is the OpenMP thread count used for every run().
  OnednnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, DType out_type, int threads,
               DType a_type = DType::u8);  // activations u8 or s8
  ~OnednnMatmul();
  OnednnMatmul(const OnednnMatmul&) = delete;
  OnednnMatmul& operator=(const OnednnMatmul&) = delete;

  void run();
  // oneDNN's implementation name, e.g. "gemm:jit" or "brg:avx512_core_vnni".
  const std::string& implementation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qtune::libraries
