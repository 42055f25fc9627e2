// Standalone requantization of an int32 matrix to u8/s8: the "separate pass" side of the GEMM's
// fused-versus-separate knob, and a kernel family of its own with ISA and unroll knobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qtune/kernels/isa.h"
#include "qtune/kernels/quant.h"

namespace qtune {

struct RequantizeConfig {
  Isa isa = Isa::scalar;
  int unroll = 1;  // vectors per loop iteration: 1, 2 or 4 (scalar: 1)
  friend bool operator==(const RequantizeConfig&, const RequantizeConfig&) = default;
};

// Every variant compiled into this build, runnable on this CPU or not.
std::vector<RequantizeConfig> requantize_variants();

// Empty when `config` can run on this CPU, else a message naming the problem
// ("isa avx512vnni is not usable on this CPU", "unroll 3 is not one of 1, 2, 4").
std::string requantize_check_config(const RequantizeConfig& config);

// out[r][c] = requantize(acc[r][c], channel c) for r < rows, c < cols, as requantize_reference()
// defines it. Per-channel params need channels() == cols; per-tensor params take any cols. Strides
// are in elements (acc_stride, out_stride >= cols). out_type is u8 or s8 and [qmin, qmax] must lie
// within it. Throws std::invalid_argument naming the problem (invalid config, unusable ISA, shapes).
void requantize(const RequantizeConfig& config, const RequantParams& params, DType out_type,
                const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                void* out, std::size_t out_stride);

// requantize() with the checks of config and params and the plan (per-channel constants laid out
// for vector loads) done once, for a caller that requantizes the same layer many times (a library
// candidate's separate pass): building the plan of a 2048-channel layer on every call cost more
// than requantizing a small layer's output.
class PreparedRequantize {
 public:
  // Throws std::invalid_argument as requantize() does for config, params and out_type.
  PreparedRequantize(const RequantizeConfig& config, const RequantParams& params, DType out_type);
  ~PreparedRequantize();
  PreparedRequantize(PreparedRequantize&&) noexcept;
  PreparedRequantize& operator=(PreparedRequantize&&) noexcept;

  // As requantize() with the prepared config, params and out_type (shapes checked per call).
  void run(const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
           std::size_t out_stride) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qtune
