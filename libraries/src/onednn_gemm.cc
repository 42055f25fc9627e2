// oneDNN's int8 matmul computing A x B as raw int32 dot products; qtune adds -za * colsum(B),
// -zb * rowsum(A), K * za * zb and the bias in wrapping int32 (oneDNN would apply zero points and
// bias in float, exact only below 2^24) and requantizes with its own pass.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "accumulator_finish.h"
#include "int32_sums.h"
#include "onednn_layers.h"
#include "onednn_support.h"

namespace qtune::libraries::detail {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

// The matmul without zero points or bias, to s32, on its first exact implementation; throws
// std::invalid_argument when oneDNN has none.
dnnl::matmul::primitive_desc exact_primitive_desc(const GemmProblem& p, const dnnl::engine& engine) {
  const memory::desc src_md({p.m, p.k}, onednn_type(p.a_type), tag::ab);
  const memory::desc weights_any({p.k, p.n}, memory::data_type::s8, tag::any);
  const memory::desc dst_md({p.m, p.n}, memory::data_type::s32, tag::ab);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, weights_any, dst_md), engine);
    select_exact_implementation(pd, p.a_type, p.k);
    return pd;
  } catch (const dnnl::error& e) {
    throw std::invalid_argument(std::string("oneDNN has no int8 matmul for this layer: ") + e.what());
  }
}

class OnednnGemm final : public LibraryGemm {
 public:
  OnednnGemm(const GemmProblem& p, const std::int8_t* b, std::size_t ldb, const std::int32_t* bias, int threads)
      : problem_(p), threads_(threads), finish_(make_finish(p, b, ldb, bias)),
        // The thread count is set before the primitive is made: oneDNN fixes its parallelization then.
        dot_products_((set_onednn_threads(threads), exact_primitive_desc(p, engine_)), engine_,
                      memory::desc({p.k, p.n}, memory::data_type::s8, memory::dims{static_cast<memory::dim>(ldb), 1}),
                      b) {}

  void run(const void* a, std::size_t lda, void* c, std::size_t ldc) const override {
    const auto m = static_cast<std::size_t>(problem_.m), k = static_cast<std::size_t>(problem_.k),
               n = static_cast<std::size_t>(problem_.n);
    thread_local std::vector<std::uint8_t> dense_a;
    thread_local std::vector<std::int32_t> acc, row_sums;
    const void* src = a;
    if (lda != k) {  // the primitive was made for dense rows
      dense_a.resize(m * k);
      for (std::size_t r = 0; r < m; ++r) std::memcpy(dense_a.data() + r * k, static_cast<const std::uint8_t*>(a) + r * lda, k);
      src = dense_a.data();
    }
    acc.resize(m * n);
    set_onednn_threads(threads_);
    dot_products_.execute(src, acc.data());
    if (finish_.needs_row_sums()) row_sums.resize(m);
    // Pointers, not the thread_local vectors: the shares run on OpenMP's threads.
    std::int32_t* sums = finish_.needs_row_sums() ? row_sums.data() : nullptr;
    std::int32_t* const dot_products = acc.data();
    in_thread_shares(threads_, m, [&](std::size_t first, std::size_t end) {
      if (sums != nullptr) {
        if (problem_.a_type == DType::u8) {
          byte_row_sums(static_cast<const std::uint8_t*>(src) + first * k, end - first, k, sums + first);
        } else {
          byte_row_sums(static_cast<const std::int8_t*>(src) + first * k, end - first, k, sums + first);
        }
      }
      finish_.finish(dot_products, first, end, sums, c, ldc);
    });
  }

  const std::string& implementation() const override { return dot_products_.implementation(); }

 private:
  // Column term of column j: -za * sum_k B[k][j] + K * za * zb[j] + bias[j], wrapping.
  static AccumulatorFinish make_finish(const GemmProblem& p, const std::int8_t* b, std::size_t ldb,
                                       const std::int32_t* bias) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<std::int32_t> terms(n);
    const auto za = static_cast<std::uint32_t>(p.a_zero_point), k = static_cast<std::uint32_t>(p.k);
    for (std::size_t j = 0; j < n; ++j) {
      std::int32_t column_sum = 0;
      for (std::int64_t i = 0; i < p.k; ++i) column_sum += b[static_cast<std::size_t>(i) * ldb + j];
      const auto zb = static_cast<std::uint32_t>(p.b_zero_points.size() > 1 ? p.b_zero_points[j] : p.b_zero_points[0]);
      std::uint32_t term = k * za * zb - za * static_cast<std::uint32_t>(column_sum);
      if (p.has_bias) term += static_cast<std::uint32_t>(bias[j]);
      terms[j] = static_cast<std::int32_t>(term);
    }
    return AccumulatorFinish(n, std::move(terms), {}, p.b_zero_points, p.out_type, p.requant);
  }

  GemmProblem problem_;
  int threads_;
  AccumulatorFinish finish_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  RawDotProducts<dnnl::matmul> dot_products_;
};

}  // namespace

std::string onednn_gemm_unsupported(const GemmProblem& problem) {
  return exactness_problem(problem.a_type, problem.k,
                           [&] { exact_primitive_desc(problem, dnnl::engine(dnnl::engine::kind::cpu, 0)); });
}

std::unique_ptr<const LibraryGemm> prepare_onednn_gemm(const GemmProblem& problem, const std::int8_t* b,
                                                       std::size_t ldb, const std::int32_t* bias, int threads) {
  return std::make_unique<const OnednnGemm>(problem, b, ldb, bias, threads);
}

}  // namespace qtune::libraries::detail
