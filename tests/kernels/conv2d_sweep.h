// The conv2d sweep every convolution implementation is checked on (the kernels' variants, the
// default, the library layers): shapes covering padding, strides, dilation, groups and depthwise
// multipliers, and quantization kinds covering every type, zero-point kind and rounding mode.
#pragma once

#include <vector>

#include "conv2d_test_support.h"

namespace qtune::testing {

struct Shape {
  std::int64_t n, h, w, c, oc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, g;
};

inline Conv2dProblem make_problem(const Shape& s, const ConvQuant& q, std::uint32_t seed) {
  Conv2dProblem p;
  p.batch = s.n;
  p.in_h = s.h;
  p.in_w = s.w;
  p.in_c = s.c;
  p.out_c = s.oc;
  p.kernel_h = s.kh;
  p.kernel_w = s.kw;
  p.stride_h = s.sh;
  p.stride_w = s.sw;
  p.dilation_h = s.dh;
  p.dilation_w = s.dw;
  p.pad_top = s.pt;
  p.pad_bottom = s.pb;
  p.pad_left = s.pl;
  p.pad_right = s.pr;
  p.groups = s.g;
  quantize_problem(p, q, seed);
  return p;
}

// Quantization kinds: every input/output type, per-tensor and per-channel, zero and non-zero
// weight zero points, with and without bias, every rounding mode, and TFLite's uint8 layer with a
// fused ReLU (its kernels compute arm's rounding: RequantPlan::make).
inline const std::vector<ConvQuant>& quant_kinds() {
  static const std::vector<ConvQuant> kinds = {
      {DType::u8, DType::s8, true, false, true, RoundingMode::tflite},
      {DType::s8, DType::u8, false, true, true, RoundingMode::upward},
      {DType::u8, DType::s32, true, true, true, RoundingMode::tflite},
      {DType::s8, DType::s8, true, false, false, RoundingMode::tonearest},
      {DType::u8, DType::u8, false, false, true, RoundingMode::arm},
      {DType::s8, DType::s8, true, true, true, RoundingMode::fp32},
      {DType::u8, DType::u8, false, true, true, RoundingMode::tflite, true},
  };
  return kinds;
}

//                n  h  w   c  oc kh kw sh sw dh dw pt pb pl pr g
inline const std::vector<Shape> kGeneralShapes = {
    {1, 5, 5, 17, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // 1x1 (gemm_1x1), 17 channels
    {2, 4, 3, 3, 17, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // 1x1, batch 2, 3 channels
    {1, 7, 7, 8, 5, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},    // 1x1 stride 2
    {1, 6, 7, 3, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 3x3 pad 1
    {1, 8, 8, 17, 8, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1},   // 3x3 stride 2, TF SAME (asymmetric)
    {1, 4, 5, 3, 4, 5, 5, 1, 1, 1, 1, 3, 3, 3, 3, 1},    // 5x5, padding larger than the half kernel
    {1, 9, 4, 5, 6, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 1},    // 7x1
    {1, 4, 9, 5, 6, 1, 7, 1, 1, 1, 1, 0, 0, 3, 3, 1},    // 1x7
    {1, 7, 7, 4, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},    // dilation 2
    {1, 1, 1, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 1x1 image
    {1, 2, 3, 1, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // 2x3 image, 1 channel
    {1, 2, 2, 3, 4, 3, 3, 1, 1, 1, 1, 4, 4, 4, 4, 1},    // outputs whose every tap is padding
    {1, 5, 5, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},    // groups 3
    {1, 4, 4, 8, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2},    // grouped 1x1
    {2, 9, 9, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // batch 2, stride 2
    {1, 6, 6, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // K = 576: several K blocks
    {1, 5, 6, 3, 2, 2, 3, 1, 2, 1, 1, 0, 1, 2, 0, 1},    // asymmetric everything
};

inline const std::vector<Shape> kDepthwiseShapes = {
    {1, 6, 7, 17, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17},    // multiplier 1, ragged channels
    {1, 7, 8, 3, 6, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 3},       // multiplier 2, stride 2, SAME
    {1, 9, 9, 40, 40, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 40},    // 5x5
    {2, 6, 6, 8, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 8},       // batch 2, dilation 2
    {1, 1, 1, 5, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},      // 1x1 image, multiplier 2
    {1, 10, 10, 96, 96, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 96},  // MobileNet-like, stride 2
    {1, 9, 5, 24, 24, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 24},    // 7x1 depthwise
    {1, 2, 3, 2, 2, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 2},       // padding larger than the kernel
    {1, 5, 9, 150, 150, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 150}, // two 64-channel blocks and a tail
    {1, 4, 21, 40, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40},   // wide rows: many affine tiles (row reuse)
    {1, 5, 23, 24, 24, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 24},   // the same at stride 2, TF SAME
    {1, 3, 14, 48, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 48},   // 14 wide: the 2nd tile of 8 moves back to 6
    {1, 4, 29, 40, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40},   // stride 2, 15 wide: 7-pixel tiles, the last moved back
    {2, 4, 13, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},   // 32 channels: rowdot pixel pairs, odd rows, batch 2
    {1, 3, 2, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 16},    // pixel pairs of a 2-wide row, multiplier 2
    {1, 5, 17, 128, 128, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 128}, // rowdot at stride 2, two blocks, TF SAME
    {1, 3, 7, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64},    // 7 wide: every tile reads through the table
};

}  // namespace qtune::testing
