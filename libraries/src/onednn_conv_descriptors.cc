#include "onednn_conv_descriptors.h"

#include "onednn_support.h"

namespace qtune::libraries::detail {

using dnnl::memory;

memory::dims conv_weight_dims(const Conv2dProblem& p) {
  const memory::dim g = p.groups, icg = p.in_c / g, ocg = p.out_c / g;
  if (g == 1) return {p.out_c, icg, p.kernel_h, p.kernel_w};
  return {g, ocg, icg, p.kernel_h, p.kernel_w};
}

memory::desc hwio_weights_desc(const Conv2dProblem& p) {
  const memory::dim oc = p.out_c, icg = p.in_c / p.groups, kw = p.kernel_w;
  if (p.groups == 1) return memory::desc(conv_weight_dims(p), memory::data_type::s8, memory::dims{1, oc, kw * icg * oc, icg * oc});
  return memory::desc(conv_weight_dims(p), memory::data_type::s8, memory::dims{oc / p.groups, 1, oc, kw * icg * oc, icg * oc});
}

memory::desc nhwc_input_desc(const Conv2dProblem& p) {
  return memory::desc({p.batch, p.in_c, p.in_h, p.in_w}, onednn_type(p.a_type), memory::format_tag::nhwc);
}

memory::desc nhwc_output_desc(const Conv2dProblem& p, DType out_type) {
  return memory::desc({p.batch, p.out_c, p.out_h(), p.out_w()}, onednn_type(out_type), memory::format_tag::nhwc);
}

dnnl::convolution_forward::desc convolution_desc(const Conv2dProblem& p, const memory::desc& output,
                                                 const memory::desc& bias) {
  return dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, nhwc_input_desc(p),
      memory::desc(conv_weight_dims(p), memory::data_type::s8, memory::format_tag::any), bias, output,
      {p.stride_h, p.stride_w}, {p.dilation_h - 1, p.dilation_w - 1}, {p.pad_top, p.pad_left},
      {p.pad_bottom, p.pad_right});
}

}  // namespace qtune::libraries::detail
