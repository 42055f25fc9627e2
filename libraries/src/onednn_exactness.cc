#include "qtune/libraries/onednn_exactness.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "onednn_support.h"
#include "qtune/libraries/onednn_conv_peer.h"

namespace qtune::libraries {
namespace {

// What is left of a layer (Conv2dProblem, GemmProblem) when only its dot products are compared.
template <class Problem>
Problem dot_products_only(Problem p) {
  p.a_zero_point = 0;
  p.b_zero_points.assign(1, 0);
  p.has_bias = false;
  p.out_type = DType::s32;
  return p;
}

std::int64_t count_mismatches(const std::vector<std::int32_t>& got, const std::vector<std::int32_t>& exact) {
  std::int64_t mismatched = 0;
  for (std::size_t i = 0; i < got.size(); ++i) mismatched += got[i] != exact[i];
  return mismatched;
}

}  // namespace

PeerExactness onednn_conv_exactness(const Conv2dProblem& problem, const std::int8_t* weights_hwio, const void* input,
                                    int threads) {
  const Conv2dProblem p = dot_products_only(problem);
  const auto outputs = static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c);
  std::vector<std::int32_t> got(outputs), exact(outputs);
  const OnednnConv peer(p, weights_hwio, nullptr, threads);
  peer.run(input, got.data());
  Conv2dOp::prepare(p, conv2d_default_config(p), weights_hwio, nullptr).run(input, exact.data());
  return {static_cast<std::int64_t>(outputs), count_mismatches(got, exact), peer.implementation()};
}

PeerExactness onednn_matmul_exactness(const GemmProblem& problem, const std::int8_t* b, const void* a, int threads) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const GemmProblem p = dot_products_only(problem);
  const auto outputs = static_cast<std::size_t>(p.m * p.n);
  std::vector<std::int32_t> got(outputs), exact(outputs);
  detail::set_onednn_threads(threads);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc src_md({p.m, p.k}, detail::onednn_type(p.a_type), tag::ab);
  const dnnl::memory::desc weights_md({p.k, p.n}, dt::s8, tag::ab);
  const dnnl::memory::desc dst_md({p.m, p.n}, dt::s32, tag::ab);
  // The peer's descriptor (OnednnMatmul: weights in oneDNN's own layout), so the same implementation.
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, dnnl::memory::desc({p.k, p.n}, dt::s8, tag::any), dst_md),
                                        engine);
  dnnl::memory weights(pd.weights_desc(), engine);
  dnnl::memory user_weights(weights_md, engine, const_cast<std::int8_t*>(b));
  dnnl::reorder(user_weights, weights).execute(stream, user_weights, weights);
  dnnl::memory src(src_md, engine, const_cast<void*>(a));
  dnnl::memory dst(dst_md, engine, got.data());
  dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
  stream.wait();
  GemmOp::prepare(p, gemm_default_config(p), b, static_cast<std::size_t>(p.n), nullptr)
      .run(a, static_cast<std::size_t>(p.k), exact.data(), static_cast<std::size_t>(p.n));
  return {static_cast<std::int64_t>(outputs), count_mismatches(got, exact), pd.impl_info_str()};
}

}  // namespace qtune::libraries
