#include "qtune/libraries/onednn_matmul_peer.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <stdexcept>
#include <vector>

#include "onednn_support.h"

namespace qtune::libraries {

struct OnednnMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul primitive;
  dnnl::memory src, weights, dst;
  std::string implementation;
  int threads = 1;
};

OnednnMatmul::OnednnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, DType out_type, int threads,
                           DType a_type)
    : impl_(std::make_unique<Impl>()) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  if (out_type != DType::s8 && out_type != DType::u8 && out_type != DType::s32) {
    throw std::invalid_argument("oneDNN matmul peer: out_type must be u8, s8 or s32");
  }
  if (threads < 1) throw std::invalid_argument("oneDNN matmul peer: threads must be >= 1");
  if (a_type != DType::u8 && a_type != DType::s8) throw std::invalid_argument("oneDNN matmul peer: a_type must be u8 or s8");
  Impl& s = *impl_;
  s.threads = threads;
  detail::set_onednn_threads(threads);  // before the primitive is created: it fixes its parallelization
  const dnnl::memory::desc src_md({m, k}, detail::onednn_type(a_type), tag::ab);
  // Weights in "any" layout: oneDNN reorders them once into its packed format, as qtune packs B
  // at prepare; the timed run() then reads the packed copy.
  const dnnl::memory::desc weights_any({k, n}, dt::s8, tag::any);
  const dnnl::memory::desc dst_md({m, n}, detail::onednn_type(out_type), tag::ab);
  dnnl::primitive_attr attr;
  if (out_type != DType::s32) attr.set_output_scales(0, {0.0005f});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, weights_any, dst_md), attr, s.engine);
  s.implementation = pd.impl_info_str();
  s.primitive = dnnl::matmul(pd);

  std::mt19937 rng(1);
  s.src = dnnl::memory(src_md, s.engine);
  auto* a = static_cast<std::uint8_t*>(s.src.get_data_handle());
  for (std::int64_t i = 0; i < m * k; ++i) a[i] = static_cast<std::uint8_t>(rng());
  dnnl::memory plain_weights(dnnl::memory::desc({k, n}, dt::s8, tag::ab), s.engine);
  auto* b = static_cast<std::int8_t*>(plain_weights.get_data_handle());
  for (std::int64_t i = 0; i < k * n; ++i) b[i] = static_cast<std::int8_t>(rng());
  s.weights = dnnl::memory(pd.weights_desc(), s.engine);
  dnnl::reorder(plain_weights, s.weights).execute(s.stream, plain_weights, s.weights);
  s.dst = dnnl::memory(dst_md, s.engine);
  run();  // warm-up: JIT and first-touch of every buffer
}

OnednnMatmul::~OnednnMatmul() = default;

void OnednnMatmul::run() {
  Impl& s = *impl_;
  detail::set_onednn_threads(s.threads);
  s.primitive.execute(s.stream, {{DNNL_ARG_SRC, s.src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, s.dst}});
  s.stream.wait();
}

const std::string& OnednnMatmul::implementation() const { return impl_->implementation; }

}  // namespace qtune::libraries
