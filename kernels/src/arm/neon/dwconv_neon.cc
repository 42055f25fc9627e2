// NEON depthwise kernels: the shared template (dwconv/dwconv_template.h) over NeonDwOperations,
// NeonVector's 4 int32 lanes per vector with taps and an epilogue of their own. A tap is one smlal
// per 4 channels: the activations widened to 16 bits and the packed w' narrowed to its int16 low
// half, so the 16x16 products are exact; the epilogue is the GEMM tiles' (requant_neon.h). The
// dotprod and i8mm CPUs run these too: their rows offer no depthwise family yet. sdot / usdot
// could take the AVX-512 dot4 form (dwconv_avx512vnni.cc: weight vector j holds only byte j of
// each lane, so raw NHWC bytes need no widening), with usdot (i8mm) matching vpdpbusd's u8 x s8
// exactly and sdot needing the x ^ 0x80 flip of u8 inputs plus 128 * sum(w) per channel; but a
// 64-channel block is 16 accumulators per pixel, half the register file, so only 1-pixel tiles
// (or half blocks) fit, and that form is not written yet.
#include <arm_neon.h>

#include <array>
#include <cstring>

#include "arm/neon/neon_vector.h"
#include "dwconv/dwconv_template.h"

namespace qtune::detail {
namespace {

// The depthwise tap operands (HasDwOperands): 4 activations and 4 weights as int16 in a d
// register, multiplied and accumulated by smlal. madd's vpmaddwd meaning on int32 lanes takes
// smull, smull2, addp and add for the same 4 products. And the tile's epilogue (HasDwTileWriter).
struct NeonDwOperations : NeonVector {
  using DwInput = int16x4_t;
  using DwWeight = int16x4_t;

  template <bool Signed>
  static DwInput load_dw_input(const std::uint8_t* p) {
    return widen16<Signed>(load4(p));
  }
  template <bool Signed>
  static DwInput load_dw_input_partial(const std::uint8_t* p, std::size_t n) {
    return widen16<Signed>(load4_partial(p, n));
  }
  // The packing's int32 lanes hold w' in their low half (dwconv.h): xtn keeps exactly that half.
  static DwWeight load_dw_weight(const std::int32_t* p) { return vmovn_s32(vld1q_s32(p)); }
  static Vec madd_dw(Vec acc, DwInput x, DwWeight w) { return vmlal_s16(acc, x, w); }

  // A requantized tile (HasDwTileWriter), in the GEMM tiles' epilogue (requant_neon.h): the plan's
  // short form where it takes one, each column's constants loaded once for the W pixels, and a
  // pixel's vectors narrowed in pairs (the clamp and the zero point on 8 int16 lanes). The forms
  // of trained layers (every short form, and fp32) are inlined into the tile, the general forms
  // reached through the mode's switch out of line: a call per tile passes the accumulators
  // through memory (as on x86: dwconv_template.h).
  template <int W, int NV, bool Ragged>
  __attribute__((always_inline)) static void write_dw_tile(const DwRowArgs& a, const RequantConstants& plan,
                                                           const Vec (&acc)[W][NV], std::size_t ow0, std::size_t c0,
                                                           std::size_t last_lanes) {
    using enum RoundingMode;
    if (plan.mode == tflite && neon::takes_plain_form<tflite>(plan)) {
      return write_tile<tflite, true, Ragged>(a, plan, acc, ow0, c0, last_lanes);
    }
    if (plan.mode == arm && neon::takes_plain_form<arm>(plan)) {
      return write_tile<arm, true, Ragged>(a, plan, acc, ow0, c0, last_lanes);
    }
    // tonearest's short form is upward's code (requant_neon.h).
    if ((plan.mode == upward && neon::takes_plain_form<upward>(plan)) ||
        (plan.mode == tonearest && neon::takes_plain_form<tonearest>(plan))) {
      return write_tile<upward, true, Ragged>(a, plan, acc, ow0, c0, last_lanes);
    }
    if (plan.mode == fp32) return write_tile<fp32, false, Ragged>(a, plan, acc, ow0, c0, last_lanes);
    Sums<W, NV> sums;
    std::memcpy(sums.v, acc, sizeof(sums.v));
    write_any_form<W, NV, Ragged>(a, plan, sums, ow0, c0, last_lanes);
  }

  // The accumulators by value: the copy in memory is made on the way to the general forms only,
  // where a reference had every tile store them before testing the plan.
  template <int W, int NV>
  struct Sums {
    Vec v[W][NV];
  };
  template <int W, int NV, bool Ragged>
  __attribute__((noinline)) static void write_any_form(const DwRowArgs& a, const RequantConstants& plan,
                                                       Sums<W, NV> sums, std::size_t ow0, std::size_t c0,
                                                       std::size_t last_lanes) {
    with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() {
      write_tile<Mode, false, Ragged>(a, plan, sums.v, ow0, c0, last_lanes);
    });
  }

  template <RoundingMode Mode, bool Plain, bool Ragged, int W, int NV>
  __attribute__((always_inline)) static void write_tile(const DwRowArgs& a, const RequantConstants& plan,
                                                        const Vec (&acc)[W][NV], std::size_t ow0, std::size_t c0,
                                                        std::size_t last_lanes) {
    // Each column's constants are a local while its W pixels use them (an array of them went
    // through the stack), and every byte is computed before the first store: the 8-bit stores
    // may alias the constants and the arguments.
    int32x4_t q[W][NV];
    for (int v = 0; v < NV; ++v) {
      const auto lanes = neon::load_requant_lanes<Mode, Plain>(plan, c0 + v * kLanes);
      for (int p = 0; p < W; ++p) q[p][v] = neon::epilogue4(acc[p][v], lanes);
    }
    const neon::OutputLanes out = neon::load_output_lanes(plan);
    constexpr int kPairs = (NV + 1) / 2;
    uint8x8_t bytes[W][kPairs];
    for (int p = 0; p < W; ++p) {
      for (int j = 0; j < kPairs; ++j) {
        const int odd = 2 * j + 1 < NV ? 2 * j + 1 : 2 * j;  // an odd last vector pairs with itself
        bytes[p][j] = neon::epilogue_bytes8<Mode, Plain>(q[p][2 * j], q[p][odd], out);
      }
    }
    // The tile's bytes in a pixel: whole vectors, the last one `last_lanes` long when Ragged.
    const std::size_t valid = (NV - 1) * kLanes + (Ragged ? last_lanes : kLanes);
    std::uint8_t* const first = static_cast<std::uint8_t*>(a.out) + ow0 * a.channels + c0;  // u8 and s8 alike
    const std::size_t pixel_step = a.channels;
    for (int p = 0; p < W; ++p) {
      std::uint8_t* const dst = first + p * pixel_step;
      for (int j = 0; j < kPairs; ++j) {
        const std::size_t n = valid - 8 * j < 8 ? valid - 8 * j : 8;
        if (n == 8) {
          vst1_u8(dst + 8 * j, bytes[p][j]);
        } else {
          std::uint8_t eight[8];
          vst1_u8(eight, bytes[p][j]);
          std::memcpy(dst + 8 * j, eight, n);
        }
      }
    }
  }
};
static_assert(Int32VectorOps<NeonDwOperations> && HasDwOperands<NeonDwOperations> &&
              HasDwTileWriter<NeonDwOperations>);

constexpr std::array kNeonKernels = {
    QTUNE_DW_KERNEL(NeonDwOperations, 8, 1),  QTUNE_DW_KERNEL(NeonDwOperations, 16, 1),
    QTUNE_DW_KERNEL(NeonDwOperations, 32, 1), QTUNE_DW_KERNEL(NeonDwOperations, 8, 2),
    QTUNE_DW_KERNEL(NeonDwOperations, 16, 2), QTUNE_DW_KERNEL(NeonDwOperations, 32, 2),
    QTUNE_DW_KERNEL(NeonDwOperations, 8, 4),  QTUNE_DW_KERNEL(NeonDwOperations, 16, 4),
    QTUNE_DW_KERNEL(NeonDwOperations, 32, 4),
    // 7 pixels (rows of 7 * 2^k pixels in whole tiles, dw_tile_at), two vectors of channels: 14
    // accumulators beside a kernel row's 9 inputs (tile_rows). The default on such rows
    // (isa_table.cc), by llvm-mca's prediction; not measured on an Arm board.
    QTUNE_DW_KERNEL(NeonDwOperations, 8, 7),
};

}  // namespace

std::span<const DwKernel> dw_kernels_neon() { return kNeonKernels; }

}  // namespace qtune::detail
