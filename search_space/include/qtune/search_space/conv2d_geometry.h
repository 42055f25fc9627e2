// The geometry of a convolution (NHWC shape, window, stride, dilation, padding, groups): 16 fields
// spelled alike in Workload, Conv2dProblem and the C API's qtune_conv2d_desc. Copied between any
// two of them by this one function, so that a new geometry field is one more line here rather
// than one in every conversion.
#pragma once

namespace qtune {

template <typename To, typename From>
void copy_conv2d_geometry(const From& from, To& to) {
  to.batch = from.batch;
  to.in_h = from.in_h;
  to.in_w = from.in_w;
  to.in_c = from.in_c;
  to.out_c = from.out_c;
  to.kernel_h = from.kernel_h;
  to.kernel_w = from.kernel_w;
  to.stride_h = from.stride_h;
  to.stride_w = from.stride_w;
  to.dilation_h = from.dilation_h;
  to.dilation_w = from.dilation_w;
  to.pad_top = from.pad_top;
  to.pad_bottom = from.pad_bottom;
  to.pad_left = from.pad_left;
  to.pad_right = from.pad_right;
  to.groups = from.groups;
}

}  // namespace qtune
