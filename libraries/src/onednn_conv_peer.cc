#include "qtune/libraries/onednn_conv_peer.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_conv_descriptors.h"
#include "onednn_support.h"

namespace qtune::libraries {

using dnnl::memory;
using detail::onednn_type;

std::string onednn_conv_unsupported(const Conv2dProblem& p) {
  for (std::int32_t zb : p.b_zero_points) {
    if (zb != 0) return "oneDNN 2.6 int8 convolution has no weight zero points";
  }
  if (p.out_type != DType::s32) {
    const std::int32_t lo = p.out_type == DType::u8 ? 0 : -128, hi = p.out_type == DType::u8 ? 255 : 127;
    if (p.requant.qmin != lo || p.requant.qmax != hi) return "clamp bounds narrower than the output type (fused ReLU) are not mapped";
  }
  return "";
}

Conv2dProblem onednn_conv_runnable(const Conv2dProblem& p, std::string& dropped) {
  Conv2dProblem q = p;
  dropped.clear();
  if (std::any_of(p.b_zero_points.begin(), p.b_zero_points.end(), [](std::int32_t zb) { return zb != 0; })) {
    q.b_zero_points.assign(1, 0);
    dropped = "weight zero points dropped (oneDNN 2.6 convolutions have none)";
  }
  if (p.out_type != DType::s32) {
    const std::int32_t lo = p.out_type == DType::u8 ? 0 : -128, hi = p.out_type == DType::u8 ? 255 : 127;
    if (p.requant.qmin != lo || p.requant.qmax != hi) {
      q.requant.qmin = lo;
      q.requant.qmax = hi;
      dropped += std::string(dropped.empty() ? "" : "; ") + "clamp bounds widened to the output type";
    }
  }
  return q;
}

struct OnednnConv::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  memory src, weights, bias, dst;
  memory src_zero_point, dst_zero_point;  // runtime zero points (null where none is set)
  int threads = 1;
};

OnednnConv::OnednnConv(const Conv2dProblem& p, const std::int8_t* weights_hwio, const std::int32_t* bias,
                       int threads)
    : state_(std::make_unique<State>()) {
  p.validate();
  if (threads < 1) throw std::invalid_argument("oneDNN conv peer: threads must be >= 1");
  state_->threads = threads;
  detail::set_onednn_threads(threads);  // before the primitive is created: it fixes its parallelization
  if (const std::string why = onednn_conv_unsupported(p); !why.empty()) throw std::runtime_error(why);
  State& s = *state_;
  const memory::desc dst_md = detail::nhwc_output_desc(p, p.out_type);
  const memory::desc bias_md = p.has_bias ? memory::desc({p.out_c}, memory::data_type::s32, memory::format_tag::x)
                                          : memory::desc();
  auto make_attr = [&](bool runtime_zero_points) {
    dnnl::primitive_attr attr;
    if (p.out_type != DType::s32) {
      std::vector<float> scales(p.requant.scales_f32.begin(), p.requant.scales_f32.end());
      attr.set_output_scales(p.requant.per_channel() ? 1 << 1 : 0, scales);
      if (p.requant.output_zero_point != 0) {
        attr.set_zero_points(DNNL_ARG_DST, 0, {runtime_zero_points ? DNNL_RUNTIME_S32_VAL : p.requant.output_zero_point});
      }
    }
    if (p.a_zero_point != 0) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {runtime_zero_points ? DNNL_RUNTIME_S32_VAL : p.a_zero_point});
    }
    return attr;
  };
  const dnnl::convolution_forward::desc desc = detail::convolution_desc(p, dst_md, bias_md);
  // Zero points given at creation where the implementation accepts them, else at execution.
  bool runtime_zero_points = false;
  try {
    s.pd = dnnl::convolution_forward::primitive_desc(desc, make_attr(false), s.engine);
  } catch (const dnnl::error&) {
    try {
      s.pd = dnnl::convolution_forward::primitive_desc(desc, make_attr(true), s.engine);
      runtime_zero_points = true;
    } catch (const dnnl::error& e) {
      throw std::runtime_error(std::string("oneDNN has no int8 convolution for this problem: ") + e.what());
    }
  }
  s.primitive = dnnl::convolution_forward(s.pd);
  s.src = memory(detail::nhwc_input_desc(p), s.engine, nullptr);
  s.dst = memory(dst_md, s.engine, nullptr);
  s.weights = memory(s.pd.weights_desc(), s.engine);
  memory user_weights(detail::hwio_weights_desc(p), s.engine, const_cast<std::int8_t*>(weights_hwio));
  dnnl::reorder(user_weights, s.weights).execute(s.stream, user_weights, s.weights);
  if (p.has_bias) {
    s.bias = memory(bias_md, s.engine);
    std::copy(bias, bias + p.out_c, static_cast<std::int32_t*>(s.bias.get_data_handle()));
  }
  if (runtime_zero_points) {
    const memory::desc zp_md({1}, memory::data_type::s32, memory::format_tag::x);
    if (p.a_zero_point != 0) {
      s.src_zero_point = memory(zp_md, s.engine);
      *static_cast<std::int32_t*>(s.src_zero_point.get_data_handle()) = p.a_zero_point;
    }
    if (p.out_type != DType::s32 && p.requant.output_zero_point != 0) {
      s.dst_zero_point = memory(zp_md, s.engine);
      *static_cast<std::int32_t*>(s.dst_zero_point.get_data_handle()) = p.requant.output_zero_point;
    }
  }
  s.stream.wait();
}

OnednnConv::~OnednnConv() = default;

void OnednnConv::run(const void* input, void* output) const {
  State& s = *state_;
  detail::set_onednn_threads(s.threads);
  s.src.set_data_handle(const_cast<void*>(input));
  s.dst.set_data_handle(output);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, s.src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, s.dst}};
  if (s.bias) args.emplace(DNNL_ARG_BIAS, s.bias);
  if (s.src_zero_point) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s.src_zero_point);
  if (s.dst_zero_point) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, s.dst_zero_point);
  s.primitive.execute(s.stream, args);
  s.stream.wait();
}

std::string OnednnConv::implementation() const { return state_->pd.impl_info_str(); }

}  // namespace qtune::libraries
