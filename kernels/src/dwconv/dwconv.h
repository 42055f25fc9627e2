// The direct depthwise-convolution kernels: the internal interface between the driver
// (conv2d_depthwise.cc), the kernel template (dwconv_template.h) and the per-ISA translation units.
//
// The driver hands a kernel one output row at a time: for every output pixel of the row, one
// pointer per kernel tap to that tap's input pixel (channel 0), or to the operator's zero-point row
// for padded taps. Channel co of a tap reads byte co of that pixel, so the input the pointers
// address always has exactly `channels` (= C_out) channels: for channel multipliers > 1 the driver
// expands the input rows first (input channel c repeated `multiplier` times).
//
// Zero-point algebra: with w' = w - zb (int16, in [-255, 255]) packed at prepare,
//   sum_t (x_t - za) * w'_t + bias = sum_t x_t * w'_t + (bias - za * sum_t w'_t)
// and the second term (`bias_term`) is precomputed per channel in wrapping int32 arithmetic. A
// padded tap points at bytes equal to za, so it contributes za * w'_t, which the precomputed term
// cancels exactly: padding costs nothing in the inner loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "qtune/kernels/isa.h"
#include "qtune/kernels/quant.h"

namespace qtune::detail {

struct RequantConstants;

// Packed weights are int32 lanes that hold the int16 w' in their low half and 0 in the high half,
// so that one vpmaddwd against a sign- or zero-extended activation lane is an exact 16x16 product.
// Layout: [taps][channels_padded]; bias_term: [channels_padded]; padding lanes are 0.
inline constexpr std::size_t kDwChannelPadding = 64;  // channels_padded is a multiple of this

struct DwRowArgs {
  // [out_w][tap_count] pixel pointers, filled only for the pixels of tiles that are not affine
  // (dw_tile_at, dw_tile_affine): building the whole table took a large share of the kernel's
  // time (docs/measurements.md, "Depthwise convolution").
  const std::uint8_t* const* taps = nullptr;
  std::size_t out_w = 0;
  // Output pixels [affine_begin, affine_end) read no horizontal padding: each of their taps is
  // pixel affine_begin's (affine_taps, tap_count pointers) plus pixel_step bytes per pixel.
  std::size_t affine_begin = 0, affine_end = 0, pixel_step = 0;
  const std::uint8_t* const* affine_taps = nullptr;
  // The dot4 and rowdot forms (DwForm) read their own weight packing for their whole 64-lane
  // blocks, and `weights` for the rest; bias_term and plan come in their lane order
  // (dw_form_channel). dot4 (dwconv_avx512vnni.cc): [taps][channels_padded / 64][4][64] bytes;
  // rowdot (dwconv_rowdot_avx512vnni.cc): [kernel rows][blocks][4][64] bytes.
  const std::uint8_t* weights_bytes = nullptr;
  std::size_t tap_count = 0;
  std::size_t kernel_w = 0, stride_w = 1, dilation_w = 1;  // taps are [kh][kw], kernel_w per row
  std::size_t channels = 0;             // C_out
  std::size_t channels_padded = 0;      // row stride of `weights`
  const std::int32_t* weights = nullptr;
  const std::int32_t* bias_term = nullptr;
  bool signed_input = false;            // s8 activations (sign-extend) or u8 (zero-extend)
  DType out_type = DType::s8;
  bool fuse_requant = true;             // requantize in registers, or store int32 then a pass
  const RequantConstants* plan = nullptr;  // out_type u8/s8
  const RequantParams* params = nullptr;  // the scalar family's requantization
  void* out = nullptr;                  // out_w x channels elements of out_type, dense
  std::int32_t* scratch = nullptr;      // out_w x channels int32 (separate requantization)
};

using DwRowFn = void (*)(const DwRowArgs& args);

// A tile of output pixels [begin, begin + width) of a row.
struct DwTile {
  std::size_t begin = 0, width = 1;
};

// The tiling of a row that every kernel uses (dwconv_template.h), also needed by the driver to know
// which tap pointers a kernel will read: tiles of width_tile pixels (halved, rounding down, while
// wider than the row) from pixel 0, the last one moved back to end at the row's end. It then
// recomputes pixels of the one before (the same values, written again), which costs less than a
// tail of narrower tiles: each tile loads its weights and sets up its epilogue once, and its pixels
// share a kernel row's inputs; in MobileNetV2's 7x7x960 layer the single pixel of a 4 + 2 + 1 row
// took a large share of the time (docs/measurements.md, "Depthwise convolution"). Width 7 divides
// every row of MobileNetV2-style networks (7 * 2^k pixels), where 4 and 8 recompute a seventh of
// the 7, 14 and 28 wide rows. The tile that starts at or before pixel ow (0, or the end of the
// previous tile):
inline DwTile dw_tile_at(std::size_t ow, std::size_t out_w, std::size_t width_tile) {
  std::size_t width = width_tile;
  while (width > 1 && width > out_w) width /= 2;
  return DwTile{ow + width <= out_w ? ow : out_w - width, width};
}

// Whether a tile addresses its taps affinely (affine_taps) rather than through the table.
inline bool dw_tile_affine(const DwRowArgs& a, DwTile tile) {
  return tile.begin >= a.affine_begin && tile.begin + tile.width <= a.affine_end;
}

// The forms of a (isa, channel_tile, width_tile) tile. The general form takes every layer; the
// others take vpdpbusd's u8 x s8 products, so DepthwiseConv runs one instead where the output is
// requantized in the kernel and every w - zb fits int8: rowdot where its shapes allow
// (dw_rowdot_applies), else dot4. Each reads the packing described in DwRowArgs.
enum class DwForm : std::uint8_t {
  general,
  dot4,    // one vpdpbusd per tap and 16 channels of a 64-channel block (dwconv_avx512vnni.cc)
  rowdot,  // one vpdpbusd per kernel row and 16 channels (dwconv_rowdot_avx512vnni.cc)
};
const char* to_string(DwForm form);

struct DwKernel {
  Isa isa;
  int channel_tile;  // output channels per step (a multiple of the ISA's vector lanes)
  int width_tile;    // output pixels per step
  DwRowFn fn;
  DwForm form = DwForm::general;
  // Its fused epilogue takes a kFp32Centred plan's accumulators less each channel's origin X0
  // (folds_centred_origin_v): DepthwiseConv then folds X0 into the bias terms where that is exact
  // and otherwise gives the kernel no centred plan.
  bool folds_centred_origin = false;
};

// Lane order of the dot4 form in each whole block of 64 channels: lane i of accumulator j holds
// channel 4i + j, and its constants (bias term, requantization plan) are stored at index 16j + i.
// The channels after the last whole block run through the general form, in channel order.
inline constexpr std::size_t kDwDot4Block = 64;
inline std::size_t dw_dot4_channel(std::size_t index, std::size_t channels) {
  if (index >= channels / kDwDot4Block * kDwDot4Block) return index;
  const std::size_t block = index / kDwDot4Block * kDwDot4Block, k = index % kDwDot4Block;
  return block + (k % 16) * 4 + k / 16;
}

// The rowdot form applies to 3-wide kernel rows with dilation 1 at stride 1 or 2, on layers of
// at least 64 channels (whole 64-channel blocks; the rest runs the general form) or of exactly 32
// at stride 1 and rows of two pixels or more, where a 64-byte block holds two adjacent pixels.
bool dw_rowdot_applies(std::size_t channels, std::size_t kernel_w, std::size_t dilation_w, std::size_t stride_w,
                       std::size_t out_w);
// Whether a rowdot layer of `channels` runs in pixel pairs (the 32-channel case).
inline bool dw_rowdot_pixel_pairs(std::size_t channels) { return channels == 32; }
// Lane order of the rowdot form: lane i of accumulator k of a block holds, in 128-bit lane L = i / 4,
// channel 16 L + 4 k + i % 4 of the block (the order the byte and word unpacks give and the packs
// undo), its constants stored at index 16 k + i. In pixel pairs the block's 64 lanes are the two
// pixels' 32 channels (L = 0, 1 and L = 2, 3), so there are 64 constants, the 32 channels' twice.
// The constant index runs over dw_rowdot_lanes(channels); the channels after the last whole block
// keep their order.
inline std::size_t dw_rowdot_lanes(std::size_t channels) { return dw_rowdot_pixel_pairs(channels) ? 64 : channels; }
inline std::size_t dw_rowdot_channel(std::size_t index, std::size_t channels) {
  if (!dw_rowdot_pixel_pairs(channels) && index >= channels / 64 * 64) return index;
  const std::size_t block = index / 64 * 64, k = index % 64 / 16, i = index % 16;
  const std::size_t in_block = 16 * (i / 4) + 4 * k + i % 4;
  return dw_rowdot_pixel_pairs(channels) ? in_block % 32 : block + in_block;
}
// The channel whose constants the kernel of `form` reads at `index`, and how many indices there are.
std::size_t dw_form_channel(DwForm form, std::size_t index, std::size_t channels);
std::size_t dw_form_lanes(DwForm form, std::size_t channels);

// The pixels a kernel's row walk (dw_walk_row) takes per tile, from which DepthwiseConv knows the
// tiles whose taps it must list: the width tile, or for rowdot pixel pairs twice it.
inline std::size_t dw_walk_width(const DwKernel& kernel, std::size_t channels) {
  const auto width = static_cast<std::size_t>(kernel.width_tile);
  return kernel.form == DwForm::rowdot && dw_rowdot_pixel_pairs(channels) ? 2 * width : width;
}

// Every depthwise kernel compiled into this build, in the order of the instruction-set table
// (dispatch/isa_table.h); each family's list is defined in its own translation unit.
std::span<const DwKernel> dw_kernel_registry();
// The kernel of (isa, channel_tile, width_tile) in `form`; null if none.
const DwKernel* find_dw_kernel(Isa isa, int channel_tile, int width_tile, DwForm form = DwForm::general);

}  // namespace qtune::detail
