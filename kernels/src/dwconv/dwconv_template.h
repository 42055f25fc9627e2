// The depthwise row kernel, written once over an instruction set's vector operations T
// (vector/vector_ops.h) and instantiated per (ISA, channel tile, width tile) in each ISA's own
// translation unit. See dwconv.h for the data layout and the zero-point algebra. The products are
// T::madd of a widened activation lane and a weight lane whose high int16 half is 0 (so the high
// half of a sign-extended activation adds nothing), or a family's own operands (DwOperands below);
// kVectorRegisters = 0 never keeps a row of inputs in registers. Every helper is a static member
// of T, so instantiations for different ISAs never share a symbol (an inline function compiled
// with AVX-512 flags must not be picked for the AVX2 path).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "dwconv/dwconv.h"
#include "vector/force_inline.h"
#include "vector/vector_ops.h"
#include "quant/requant_plan.h"
#include "requantize/requantize_internal.h"

#define QTUNE_DW_UNROLL _Pragma("GCC unroll 16")

namespace qtune::detail {

// Walks a row in the tiling of dw_tile_at, calling visit.template operator()<W, Affine>(first
// pixel) for each tile.
template <int WidthTile, class Visit>
void dw_walk_row(const DwRowArgs& a, Visit&& visit) {
  if constexpr (WidthTile > 1) {
    if (a.out_w < WidthTile) return dw_walk_row<WidthTile / 2>(a, visit);
  }
  for (std::size_t ow = 0; ow < a.out_w; ow += WidthTile) {
    const std::size_t begin = dw_tile_at(ow, a.out_w, WidthTile).begin;  // the last one moved back
    if (dw_tile_affine(a, DwTile{begin, WidthTile})) {
      visit.template operator()<WidthTile, true>(begin);
    } else {
      visit.template operator()<WidthTile, false>(begin);
    }
  }
}

// A family whose widening multiply-accumulate takes 16-bit operands (NEON's smlal: one instruction
// for four products, where madd's vpmaddwd meaning takes four) names its own tap operands: DwInput
// (kLanes activations, sign- or zero-extended to 16 bits), DwWeight (kLanes of the packed w'), and
// madd_dw(acc, x, w), acc + x * w per lane, equal to madd on the widened lanes.
template <class T>
concept HasDwOperands = requires(typename T::Vec acc, typename T::DwInput x, typename T::DwWeight w,
                                 const std::uint8_t* bytes, const std::int32_t* p32, std::size_t n) {
  { T::template load_dw_input<true>(bytes) } -> std::same_as<typename T::DwInput>;
  { T::template load_dw_input_partial<false>(bytes, n) } -> std::same_as<typename T::DwInput>;
  { T::load_dw_weight(p32) } -> std::same_as<typename T::DwWeight>;
  { T::madd_dw(acc, x, w) } -> std::same_as<typename T::Vec>;
};

// The tap operands of T: its own where it has them, else widened int32 lanes and T::madd.
template <class T>
struct DwOperandTypes {
  using Input = typename T::Vec;
  using Weight = typename T::Vec;
};
template <HasDwOperands T>
struct DwOperandTypes<T> {
  using Input = typename T::DwInput;
  using Weight = typename T::DwWeight;
};
template <class T>
struct DwOperands : DwOperandTypes<T> {
  using Input = typename DwOperandTypes<T>::Input;
  using Weight = typename DwOperandTypes<T>::Weight;
  static constexpr bool kOwn = HasDwOperands<T>;

  template <bool Signed>
  static Input input(const std::uint8_t* p) {
    if constexpr (kOwn) return T::template load_dw_input<Signed>(p);
    else return T::template load_widen<Signed>(p);
  }
  template <bool Signed>
  static Input input_partial(const std::uint8_t* p, std::size_t n) {
    if constexpr (kOwn) return T::template load_dw_input_partial<Signed>(p, n);
    else return T::template load_widen_partial<Signed>(p, n);
  }
  static Weight weight(const std::int32_t* p) {
    if constexpr (kOwn) return T::load_dw_weight(p);
    else return T::load(p);
  }
  static typename T::Vec madd(typename T::Vec acc, Input x, Weight w) {
    if constexpr (kOwn) return T::madd_dw(acc, x, w);
    else return T::madd(acc, x, w);
  }
};

// A family may write its requantized tiles itself (T::write_dw_tile<W, NV, Ragged>, with the
// arguments of DwRowKernel::finish): NEON narrows a pixel's two vectors together, with a column's
// constants loaded once and the plans' short forms.
template <class T>
concept HasDwTileWriter = requires(const DwRowArgs& args, const RequantConstants& plan,
                                   const typename T::Vec (&acc)[1][1], std::size_t n) {
  T::template write_dw_tile<1, 1, false>(args, plan, acc, n, n, n);
};

// Returns `p`, which the optimizer may then no longer relate to the expression it came from.
inline const std::uint8_t* opaque_pointer(const std::uint8_t* p) {
  asm("" : "+r"(p));
  return p;
}

// The tiles of the row kernels: W output pixels x NV channel vectors, whatever the kernel's
// channel and width tiles. They are members of a struct of their own (not of DwRowKernel) so that
// the kernels of a family and sign share each tile function: as members of every (channel tile,
// width tile) kernel, the same tiles were compiled over and over, about three times each.
template <class T, bool Signed>
struct DwTiles {
  static constexpr int kLanes = T::kLanes;
  using Vec = typename T::Vec;
  using Operands = DwOperands<T>;
  using Input = typename Operands::Input;
  using Weight = typename Operands::Weight;

  // W output pixels x NV vectors of channels starting at c0; when Ragged, the last vector holds
  // only `last_lanes` valid channels (the row's channel tail). Affine: the pixels' taps are the
  // first pixel's plus p * pixel_step (see DwRowArgs).
  template <int W, int NV, bool Ragged, bool Affine>
  static void tile(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0, std::size_t c0,
                   std::size_t last_lanes) {
    // The bias term is added after the taps: accumulators that all started from the same bias
    // vector made GCC keep one register per value and copy it around the tap loop.
    Vec acc[W][NV];
    QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
      QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) acc[p][v] = T::zero();
    }
    const std::uint8_t* const* taps = Affine ? a.affine_taps : a.taps + ow0 * a.tap_count;
    const std::size_t offset = Affine ? (ow0 - a.affine_begin) * a.pixel_step + c0 : c0;
    for (std::size_t t = 0; t < a.tap_count; ++t) {
      const std::int32_t* w_row = a.weights + t * a.channels_padded + c0;
      Weight w[NV];
      QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) w[v] = Operands::weight(w_row + v * kLanes);
      const std::uint8_t* first = taps[t] + offset;
      QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
        const std::uint8_t* x = Affine ? first + p * a.pixel_step : taps[p * a.tap_count + t] + c0;
        QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) {
          Input xv;
          if constexpr (Ragged) {
            xv = v == NV - 1 ? Operands::template input_partial<Signed>(x + v * kLanes, last_lanes)
                             : Operands::template input<Signed>(x + v * kLanes);
          } else {
            xv = Operands::template input<Signed>(x + v * kLanes);
          }
          acc[p][v] = Operands::madd(acc[p][v], xv, w[v]);
        }
      }
    }
    finish<W, NV, Ragged>(a, plan, acc, ow0, c0, last_lanes);
  }

  // Tiles of 3-wide kernels with dilation 1 (the depthwise layers of MobileNet-style networks):
  // tap kw of pixel p reads input pixel p * S + kw of its kernel row, so a kernel row's
  // (W - 1) * S + 3 input vectors are widened once and each serves up to three taps, where the
  // tap-by-tap loop widens W * 3 (the widening is a shuffle, on the port the products also use).
  // Affine tiles find input q at the row's first tap plus q pixels; the others (on the row's
  // padding) read it through the table, as tap q - p * S of the pixel p = min(q / S, W - 1) that
  // uses it: padded inputs are the zero row's bytes there. The rows of 7x7 and 14x14 layers are
  // mostly such tiles, which tap by tap took most of a 7x7 layer's time (docs/measurements.md,
  // "Depthwise convolution").
  template <int W, int NV, bool Ragged, int S, bool Affine>
  static void tile_rows(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0, std::size_t c0,
                        std::size_t last_lanes) {
    constexpr int kKernelW = 3, kInputs = (W - 1) * S + kKernelW;
    Vec acc[W][NV];
    QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
      QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) acc[p][v] = T::zero();
    }
    const std::size_t offset = Affine ? (ow0 - a.affine_begin) * a.pixel_step + c0 : c0;
    const std::size_t input_pixel = a.pixel_step / S;
    const std::uint8_t* const* pixel_taps = a.taps + ow0 * a.tap_count;
    for (std::size_t t = 0; t < a.tap_count; t += kKernelW) {
      // Input q of this kernel row, channel c0: affine, q pixels after the row's first input;
      // otherwise through the table.
      const std::uint8_t* const row = Affine ? a.affine_taps[t] + offset : nullptr;
      [[maybe_unused]] const std::uint8_t* inputs[kInputs];
      if constexpr (!Affine) {
        QTUNE_DW_UNROLL for (int q = 0; q < kInputs; ++q) {
          const int p = q / S < W - 1 ? q / S : W - 1;
          inputs[q] = pixel_taps[p * a.tap_count + t + (q - p * S)] + offset;
        }
      }
      const std::int32_t* w_row = a.weights + t * a.channels_padded + c0;
      QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) {
        Input x[kInputs];
        // Affine inputs are read three at a time from a pointer stepped by three pixels and hidden
        // from the optimizer (opaque_pointer): otherwise GCC keeps q * pixel for every q in a register
        // and, at stride 2 (15 inputs), spills them to vector registers and back on every row.
        const std::uint8_t* step_base = Affine ? row + v * kLanes : nullptr;
        QTUNE_DW_UNROLL for (int q = 0; q < kInputs; ++q) {
          const std::uint8_t* src;
          if constexpr (Affine) {
            if (q > 0 && q % 3 == 0) step_base = opaque_pointer(step_base + 3 * input_pixel);
            src = step_base + (q % 3) * input_pixel;
          } else {
            src = inputs[q] + v * kLanes;
          }
          x[q] = Ragged && v == NV - 1 ? Operands::template input_partial<Signed>(src, last_lanes)
                                       : Operands::template input<Signed>(src);
        }
        QTUNE_DW_UNROLL for (int kw = 0; kw < kKernelW; ++kw) {
          const Weight w = Operands::weight(w_row + kw * a.channels_padded + v * kLanes);
          QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) acc[p][v] = Operands::madd(acc[p][v], x[p * S + kw], w);
        }
      }
    }
    finish<W, NV, Ragged>(a, plan, acc, ow0, c0, last_lanes);
  }

  // Whether tile_rows<W, NV, ..., S, ...> applies to the row and its inputs and accumulators fit
  // in the ISA's vector registers (one channel vector's inputs live at a time).
  template <int W, int NV, int S>
  static bool rows_apply(const DwRowArgs& a) {
    constexpr int kRegisters = W * NV + (W - 1) * S + 3 + 1;
    return T::kVectorRegisters >= kRegisters && a.kernel_w == 3 && a.dilation_w == 1 && a.stride_w == S &&
           a.tap_count % 3 == 0;
  }

  // Adds the bias term and writes the tile (requantized, or int32 to the output or the scratch row).
  // The sums go to a new array: the epilogue's mode switch may take it by reference out of line,
  // and had the tap loop's own array escaped so, every byte load of the loop (which may alias it)
  // would have made GCC store the accumulators back to memory at each tap.
  template <int W, int NV, bool Ragged>
  QTUNE_FORCE_INLINE static void finish(const DwRowArgs& a, const RequantConstants& plan,
                                        const Vec (&taps)[W][NV], std::size_t ow0, std::size_t c0,
                                        std::size_t last_lanes) {
    Vec acc[W][NV];
    QTUNE_DW_UNROLL for (int v = 0; v < NV; ++v) {
      const Vec b = T::load(a.bias_term + c0 + v * kLanes);
      QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) acc[p][v] = T::add(taps[p][v], b);
    }
    if (a.out_type != DType::s32 && a.fuse_requant) {
      if constexpr (HasDwTileWriter<T>) {
        return T::template write_dw_tile<W, NV, Ragged>(a, plan, acc, ow0, c0, last_lanes);
      } else {
        // The plans' usual modes are called directly, before the mode's switch: inside its lambda
        // GCC called the lambda (and with_rounding_mode) out of line, the accumulators went through
        // memory and the 3x3 layers ran slower (docs/measurements.md, "Depthwise convolution").
        if constexpr (HasU8FullRangeEpilogue<T, RoundingMode::tflite> && HasU8FullRangeEpilogue<T, RoundingMode::arm> &&
                      HasU8FullRangeEpilogue<T, RoundingMode::fp32> && HasU8FullRangeEpilogue<T, kFp32Offset> &&
                      HasU8FullRangeEpilogue<T, kFp32Centred>) {
          if (a.out_type == DType::u8 && u8_full_range_epilogue(plan, plan.mode) &&
              write_in_mode<true, W, NV, Ragged, RoundingMode::tflite, RoundingMode::arm, kFp32Offset, kFp32Centred,
                            RoundingMode::fp32>(a, plan, acc, ow0, c0, last_lanes)) {
            return;
          }
        } else if constexpr (HasRequantLanes<T, RoundingMode::tflite> && HasRequantLanes<T, RoundingMode::arm> &&
                             HasRequantLanes<T, RoundingMode::fp32> && HasRequantLanes<T, kFp32Offset>) {
          // Families without the short u8 forms (AVX2): every output type. Not for the others'
          // s8 outputs too: four more epilogues inlined into every tile lengthen their
          // translation units' compile time by a third (commit a17b2fa).
          if (write_in_mode<false, W, NV, Ragged, RoundingMode::tflite, RoundingMode::arm, kFp32Offset,
                            RoundingMode::fp32>(a, plan, acc, ow0, c0, last_lanes)) {
            return;
          }
        }
        return with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() {
          write_requantized<Mode, W, NV, Ragged, false>(a, plan, acc, ow0, c0, last_lanes);
        });
      }
    }
    std::int32_t* out = a.out_type == DType::s32 ? static_cast<std::int32_t*>(a.out) : a.scratch;
    for (int p = 0; p < W; ++p) {
      const std::size_t pixel = (ow0 + p) * a.channels;
      for (int v = 0; v < NV; ++v) {
        const std::size_t n = Ragged && v == NV - 1 ? last_lanes : kLanes;
        T::store(out + pixel + c0 + v * kLanes, acc[p][v], n);
      }
    }
  }

  // Writes the tile in plan.mode's epilogue if that is one of Modes (each called directly) and
  // returns whether it was.
  template <bool U8Full, int W, int NV, bool Ragged, RoundingMode... Modes>
  QTUNE_FORCE_INLINE static bool write_in_mode(const DwRowArgs& a, const RequantConstants& plan,
                                               const Vec (&acc)[W][NV], std::size_t ow0, std::size_t c0,
                                               std::size_t last_lanes) {
    return ((plan.mode == Modes &&
             (write_requantized<Modes, W, NV, Ragged, U8Full>(a, plan, acc, ow0, c0, last_lanes), true)) ||
            ...);
  }

  // The fused epilogue (the bias terms hold X0 less where the family folds it: DwKernel).
  // Every lane is requantized before the first store: the 8-bit stores may alias anything, so
  // constants loaded after one would be loaded again for every pixel; this way each vector of
  // per-channel constants is loaded once for the W pixels that share it.
  // U8Full: the short u8 epilogue (HasU8FullRangeEpilogue). Families with RequantLanes load a
  // channel vector's constants once for its W pixels (the others call out of line per vector).
  template <RoundingMode Mode, int W, int NV, bool Ragged, bool U8Full>
  QTUNE_FORCE_INLINE static void write_requantized(const DwRowArgs& a, const RequantConstants& plan,
                                                   const Vec (&acc)[W][NV], std::size_t ow0, std::size_t c0,
                                                   std::size_t last_lanes) {
    // The family's epilogue scope (vector_ops.h) around the requantization and the stores: GCC
    // keeps computations before the stores that use them, not before a change of MXCSR.
    [[maybe_unused]] const epilogue_scope_t<T, Mode> scope;
    Vec q[W][NV];
    for (int v = 0; v < NV; ++v) {
      if constexpr (U8Full || HasRequantLanes<T, Mode>) {
        const auto lanes = T::template requant_lanes<Mode>(plan, c0 + v * kLanes);
        for (int p = 0; p < W; ++p) q[p][v] = requantize_with_lanes<Mode, U8Full>(acc[p][v], lanes, plan);
      } else {
        for (int p = 0; p < W; ++p) {
          if constexpr (folds_centred_origin_v<T>) {
            q[p][v] = T::template requantize<Mode, true>(acc[p][v], plan, c0 + v * kLanes);
          } else {
            q[p][v] = T::template requantize<Mode>(acc[p][v], plan, c0 + v * kLanes);
          }
        }
      }
    }
    for (int p = 0; p < W; ++p) {
      auto* out = static_cast<std::uint8_t*>(a.out) + (ow0 + p) * a.channels + c0;
      for (int v = 0; v < NV; ++v) {
        store_q8<T>(out + v * kLanes, a.out_type, q[p][v], Ragged && v == NV - 1 ? last_lanes : kLanes);
      }
    }
  }

  template <RoundingMode Mode, bool U8Full, class Lanes>
  QTUNE_FORCE_INLINE static Vec requantize_with_lanes(Vec x, const Lanes& lanes, const RequantConstants& plan) {
    constexpr bool kFolded = folds_centred_origin_v<T>;
    if constexpr (U8Full && kFolded) {
      return T::template requantize_u8_full<Mode, true>(x, lanes, plan);
    } else if constexpr (U8Full) {
      return T::template requantize_u8_full<Mode>(x, lanes, plan);
    } else if constexpr (kFolded) {
      return T::template requantize<Mode, true>(x, lanes, plan);
    } else {
      return T::template requantize<Mode>(x, lanes, plan);
    }
  }

  // One tile of NV channel vectors at c: through tile_rows where it applies, else tap by tap.
  template <int W, int NV, bool Ragged, bool Affine>
  static void step(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0, std::size_t c,
                   std::size_t last_lanes) {
    if (rows_apply<W, NV, 1>(a)) return tile_rows<W, NV, Ragged, 1, Affine>(a, plan, ow0, c, last_lanes);
    if (rows_apply<W, NV, 2>(a)) return tile_rows<W, NV, Ragged, 2, Affine>(a, plan, ow0, c, last_lanes);
    tile<W, NV, Ragged, Affine>(a, plan, ow0, c, last_lanes);
  }
};

template <class T, int ChannelTile, int WidthTile, bool Signed>
struct DwRowKernel {
  static constexpr int kLanes = T::kLanes;
  static_assert(ChannelTile % kLanes == 0, "the channel tile is a whole number of vectors");
  static constexpr int kVectors = ChannelTile / kLanes;
  using Tiles = DwTiles<T, Signed>;

  template <int W, bool Affine>
  static void columns(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0) {
    std::size_t c = 0;
    for (; c + ChannelTile <= a.channels; c += ChannelTile) {
      Tiles::template step<W, kVectors, false, Affine>(a, plan, ow0, c, kLanes);
    }
    if constexpr (kVectors > 1) {
      for (; c + kLanes <= a.channels; c += kLanes) Tiles::template step<W, 1, false, Affine>(a, plan, ow0, c, kLanes);
    }
    if (c < a.channels) Tiles::template step<W, 1, true, Affine>(a, plan, ow0, c, a.channels - c);
  }

  static void run(const DwRowArgs& a) {
    // A local copy (see RequantConstants); unused for int32 outputs.
    const RequantConstants plan = a.plan != nullptr ? *a.plan : RequantConstants{};
    dw_walk_row<WidthTile>(a, [&]<int W, bool Affine>(std::size_t ow0) { columns<W, Affine>(a, plan, ow0); });
    if (a.out_type != DType::s32 && !a.fuse_requant) requantize_row(a, plan);
  }

  // The separate pass: the whole row's int32 results (out_w pixels of `channels` lanes),
  // requantized as the standalone kernel does.
  static void requantize_row(const DwRowArgs& a, const RequantConstants& plan) {
    requantize_rows_unrolled<T, 1>(plan, a.out_type, a.scratch, a.out_w, a.channels, a.channels, a.out, a.channels);
  }
};

template <class T, int ChannelTile, int WidthTile>
void dw_row(const DwRowArgs& args) {
  if (args.signed_input) {
    DwRowKernel<T, ChannelTile, WidthTile, true>::run(args);
  } else {
    DwRowKernel<T, ChannelTile, WidthTile, false>::run(args);
  }
}

}  // namespace qtune::detail

// One registry entry: DwKernel{isa, channel tile, width tile, row function, general form, folding}.
#define QTUNE_DW_KERNEL(Traits, ChannelTile, WidthTile)                                                  \
  ::qtune::detail::DwKernel {                                                                          \
    Traits::kIsa, ChannelTile, WidthTile, &::qtune::detail::dw_row<Traits, ChannelTile, WidthTile>,         \
        ::qtune::detail::DwForm::general,                                                              \
        ::qtune::detail::folds_centred_origin_v<Traits>                                                \
  }
