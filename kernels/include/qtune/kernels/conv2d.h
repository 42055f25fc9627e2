// Quantized 2-D convolution, NHWC, with the same quantization semantics as GemmProblem.
//
// Input  N x H x W x C_in   (u8 or s8, zero point za; padded positions hold za, so they add 0)
// Weights KH x KW x (C_in/groups) x C_out  int8 ("HWIO"; for depthwise, C_out = C_in * multiplier
//         and channel co reads input channel co / multiplier)
// Output N x OH x OW x C_out (s32, or requantized u8/s8, per tensor or per output channel)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qtune/kernels/gemm.h"

namespace qtune {

struct Conv2dProblem {
  std::int64_t batch = 1, in_h = 0, in_w = 0, in_c = 0, out_c = 0;
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  std::int64_t groups = 1;
  DType a_type = DType::u8;
  std::int32_t a_zero_point = 0;
  std::vector<std::int32_t> b_zero_points{0};  // size 1 or out_c
  bool has_bias = true;
  DType out_type = DType::s8;
  RequantParams requant;                     // channels() 1 or out_c

  std::int64_t out_h() const;
  std::int64_t out_w() const;
  bool depthwise() const { return groups == in_c && groups > 1 && out_c % in_c == 0; }
  // The GEMM one group of this convolution is: M = N*OH*OW, N = C_out/groups, K = KH*KW*C_in/groups.
  GemmProblem as_gemm() const;
  void validate() const;  // throws std::invalid_argument naming the field
};

enum class ConvAlgo : unsigned char {
  im2col,     // copy patches into a (reused) buffer, then GEMM
  indirect,   // table of row pointers (padding -> a zero-point row), packed straight into GEMM panels
  gemm_1x1,   // 1x1, stride 1, no padding: the input already is the GEMM's A, no copy at all
  depthwise,  // direct depthwise kernel
  implicit,   // GEMM reading each kernel row's run of input bytes in place (no im2col copy): one
              // group, dilation 1 along W, KW*C_in a whole number of the microkernel's k groups
};
std::string_view to_string(ConvAlgo algo);
std::optional<ConvAlgo> parse_conv_algo(std::string_view name);

struct Conv2dConfig {
  ConvAlgo algo = ConvAlgo::im2col;
  GemmConfig gemm;        // knobs of the GEMM-based algorithms (isa, tile, blocking, fuse, threads)
  int dw_channel_tile = 16;  // depthwise: channels per vector step
  int dw_width_tile = 1;     // depthwise: output pixels per step
};

// A direct depthwise kernel compiled into this build (runnable here or not). Names follow the
// GEMM microkernels' style: "q8-dwconv-32c4w-avx512vnni" computes 32 channels x 4 output pixels
// per step for u8 or s8 activations on AVX-512 VNNI; "-dot4" and "-rowdot" mark the vpdpbusd
// forms that the operator runs in place of the general kernel of the same tile where they apply
// (fused requantization, weights within int8 less their zero point; rowdot: 3-wide kernels at
// stride 1 or 2, 64 channels or more or 32 at stride 1).
struct DepthwiseKernelInfo {
  Isa isa;
  int channel_tile = 0, width_tile = 0;
  std::string form;  // empty for the general kernel, else "dot4" or "rowdot"
  std::string name;
};
// Every depthwise kernel compiled in, in the order of the instruction-set table; filter with
// cpu_features().usable(info.isa).
const std::vector<DepthwiseKernelInfo>& depthwise_kernels();

std::string conv2d_check_config(const Conv2dProblem& problem, const Conv2dConfig& config);
Conv2dConfig conv2d_default_config(const Conv2dProblem& problem);

class Conv2dOp {
 public:
  static Conv2dOp prepare(const Conv2dProblem& problem, const Conv2dConfig& config,
                          const std::int8_t* weights, const std::int32_t* bias);
  // input/output dense NHWC. Thread-safe.
  void run(const void* input, void* output) const;
  const Conv2dProblem& problem() const;
  const Conv2dConfig& config() const;

  Conv2dOp(Conv2dOp&&) noexcept;
  Conv2dOp& operator=(Conv2dOp&&) noexcept;
  ~Conv2dOp();
  struct Impl;
 private:
  explicit Conv2dOp(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

void conv2d_reference(const Conv2dProblem& problem, const void* input, const std::int8_t* weights,
                      const std::int32_t* bias, void* output);

}  // namespace qtune
