// The depthwise algorithm of Conv2dOp: packs the weights for the direct kernels (dwconv.h) and
// drives them one output row at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "dwconv/dwconv.h"
#include "qtune/kernels/conv2d.h"
#include "quant/requant_plan.h"

namespace qtune::detail {

class DepthwiseConv {
 public:
  // `problem` must be depthwise and `config` valid for it (conv2d_check_config).
  DepthwiseConv(const Conv2dProblem& problem, const Conv2dConfig& config, const std::int8_t* weights,
                const std::int32_t* bias);
  void run(const void* input, void* output) const;
  std::size_t packed_weight_bytes() const;
  // The form of the configured tile that runs (DwForm).
  DwForm form() const { return kernel_->form; }

 private:
  void run_rows(const std::uint8_t* input, std::uint8_t* output, std::int64_t row_begin, std::int64_t row_end) const;

  Conv2dProblem problem_;
  const DwKernel* kernel_ = nullptr;
  bool fuse_requant_ = true;
  int threads_ = 1;
  std::int64_t out_h_ = 0, out_w_ = 0, multiplier_ = 1;
  std::size_t channels_ = 0, channels_padded_ = 0;
  std::vector<std::int32_t> weights_;    // [tap][channels_padded]: uint16(w - zb) in the low half
  std::vector<std::uint8_t> weights_bytes_;  // the dot4 or rowdot form's (DwRowArgs::weights_bytes)
  std::vector<std::int32_t> bias_term_;  // [channels_padded]: bias - za' * sum_t (w - zb), in the kernel's lane order
  std::vector<std::uint8_t> zero_row_;   // in_w x channels bytes equal to the input zero point
  std::size_t affine_begin_ = 0, affine_end_ = 0;  // output pixels without horizontal padding
  RequantPlan plan_;                 // in the kernel's lane order
  RequantConstants plan_constants_;  // what the row kernels read of plan_
};

}  // namespace qtune::detail
