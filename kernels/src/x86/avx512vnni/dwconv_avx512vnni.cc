// AVX-512 depthwise kernels: 16 int32 lanes per vector, vpdpwssd products, masked ragged edges,
// fused requantization with requant_avx512.h. Compiled with the avx512vnni folder's flags; only
// ever called after cpu_features().usable(Isa::avx512vnni).
#include "x86/avx512vnni/avx512_vector.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include <array>

#include "dwconv/dwconv_template.h"
#include "x86/avx512vnni/dwconv_avx512_tiles.h"
#include "x86/avx512vnni/dwconv_rowdot_avx512vnni.h"

namespace qtune::detail {
namespace {

// ---- The dot4 form of the 64-channel tiles -------------------------------------------------------
// vpdpbusd adds four adjacent byte products into each int32 lane, and adjacent bytes of an NHWC
// pixel are different channels, so depthwise cannot use it directly. With four weight vectors per
// tap, vector j holding only byte j of each lane (the weight of channel 4i + j in lane i, zeros
// elsewhere), accumulator j collects channels 4i + j of a 64-channel block from the raw input bytes:
// one vpdpbusd per 16 channel-taps, where the general form needs a widening load and a vpdpwssd.
// It needs u8 x s8 operands: s8 activations are flipped (x ^ 0x80 = x + 128, compensated in the
// bias term like the GEMM's), and the weights minus their zero point must fit in int8 (the driver
// checks; dw_dot4_channel gives the lane order of the bias term and the plan it passes).
template <int WidthTile, bool Signed>
struct DwDot4RowKernel {
  using Vec = __m512i;

  static Vec dot(Vec acc, Vec x, Vec w) {
    asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));  // in place: see Avx512Vector::madd
    return acc;
  }

  // W output pixels x the block of 64 channels from c0.
  template <int W, bool Affine>
  static void tile(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0, std::size_t c0) {
    Vec acc[W][4];
    QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
      QTUNE_DW_UNROLL for (int j = 0; j < 4; ++j) acc[p][j] = _mm512_setzero_si512();
    }
    const std::uint8_t* const* taps = Affine ? a.affine_taps : a.taps + ow0 * a.tap_count;
    const std::size_t offset = Affine ? (ow0 - a.affine_begin) * a.pixel_step + c0 : c0;
    const std::uint8_t* weights = a.weights_bytes + c0 * 4;
    const Vec flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (std::size_t t = 0; t < a.tap_count; ++t) {
      const std::uint8_t* w_tap = weights + t * a.channels_padded * 4;
      Vec w[4];
      QTUNE_DW_UNROLL for (int j = 0; j < 4; ++j) w[j] = _mm512_loadu_si512(w_tap + 64 * j);
      const std::uint8_t* first = taps[t] + offset;
      QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
        const std::uint8_t* x = Affine ? first + p * a.pixel_step : taps[p * a.tap_count + t] + c0;
        Vec xv = _mm512_loadu_si512(x);
        if constexpr (Signed) xv = _mm512_xor_si512(xv, flip);
        QTUNE_DW_UNROLL for (int j = 0; j < 4; ++j) acc[p][j] = dot(acc[p][j], xv, w[j]);
      }
    }
    QTUNE_DW_UNROLL for (int j = 0; j < 4; ++j) {
      const Vec b = _mm512_loadu_si512(a.bias_term + c0 + 16 * j);
      QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) acc[p][j] = _mm512_add_epi32(acc[p][j], b);
    }
    with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() { write<Mode, W>(a, plan, acc, ow0, c0); });
  }

  // Requantizes each pixel's four accumulators and stores them as one vector of 64 bytes, channel
  // 4i + j taking the low byte of lane i of accumulator j (values are in [qmin, qmax] already).
  template <RoundingMode Mode, int W>
  QTUNE_FORCE_INLINE static void write(const DwRowArgs& a, const RequantConstants& plan,
                                       const Vec (&acc)[W][4], std::size_t ow0, std::size_t c0) {
    const Vec low_byte = _mm512_set1_epi32(0xFF);
    Vec bytes[W];
    QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
      Vec q[4];
      QTUNE_DW_UNROLL for (int j = 0; j < 4; ++j) {
        q[j] = avx512::requantize16<Mode, /*OriginFolded=*/true>(acc[p][j], plan, c0 + 16 * j);
      }
      // (q0 & 0xFF) | (q1 & 0xFF) << 8 | (q2 & 0xFF) << 16 | q3 << 24; ternlog 0xF8 is A | (B & C).
      Vec v = _mm512_and_si512(q[0], low_byte);
      v = _mm512_ternarylogic_epi32(v, _mm512_slli_epi32(q[1], 8), _mm512_slli_epi32(low_byte, 8), 0xF8);
      v = _mm512_ternarylogic_epi32(v, _mm512_slli_epi32(q[2], 16), _mm512_slli_epi32(low_byte, 16), 0xF8);
      bytes[p] = _mm512_or_si512(v, _mm512_slli_epi32(q[3], 24));
    }
    QTUNE_DW_UNROLL for (int p = 0; p < W; ++p) {
      _mm512_storeu_si512(static_cast<std::uint8_t*>(a.out) + (ow0 + p) * a.channels + c0, bytes[p]);
    }
  }

  // Whole 64-channel blocks in the dot4 form; the rest (fewer than 64 channels, where a dot4 block
  // would mostly compute padding) 16 at a time in the general form.
  template <int W, bool Affine>
  static void blocks(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0) {
    using General = DwTiles<Avx512Vector, Signed>;
    std::size_t c = 0;
    for (; c + kDwDot4Block <= a.channels; c += kDwDot4Block) tile<W, Affine>(a, plan, ow0, c);
    for (; c + 16 <= a.channels; c += 16) General::template tile<W, 1, false, Affine>(a, plan, ow0, c, 16);
    if (c < a.channels) General::template tile<W, 1, true, Affine>(a, plan, ow0, c, a.channels - c);
  }

  // Fused requantized output only (the driver's precondition).
  static void run(const DwRowArgs& a) {
    const RequantConstants plan = *a.plan;  // a local copy (see RequantConstants)
    dw_walk_row<WidthTile>(a, [&]<int W, bool Affine>(std::size_t ow0) { blocks<W, Affine>(a, plan, ow0); });
  }
};

template <int WidthTile>
void dw_dot4_row(const DwRowArgs& args) {
  if (args.signed_input) {
    DwDot4RowKernel<WidthTile, true>::run(args);
  } else {
    DwDot4RowKernel<WidthTile, false>::run(args);
  }
}

constexpr std::array kAvx512Kernels = {
    QTUNE_AVX512_DW_GENERAL_KERNELS,
    // The dot4 form requantizes in its own epilogue (fused only), folded like the general form's.
    DwKernel{Isa::avx512vnni, 64, 1, &dw_dot4_row<1>, DwForm::dot4, true},
    DwKernel{Isa::avx512vnni, 64, 2, &dw_dot4_row<2>, DwForm::dot4, true},
    DwKernel{Isa::avx512vnni, 64, 4, &dw_dot4_row<4>, DwForm::dot4, true},
    // The rowdot form likewise (dwconv_rowdot_avx512vnni.cc).
    DwKernel{Isa::avx512vnni, 64, 1, &dw_rowdot_row<1>, DwForm::rowdot, true},
    DwKernel{Isa::avx512vnni, 64, 2, &dw_rowdot_row<2>, DwForm::rowdot, true},
    DwKernel{Isa::avx512vnni, 64, 4, &dw_rowdot_row<4>, DwForm::rowdot, true},
};

}  // namespace

std::span<const DwKernel> dw_kernels_avx512vnni() { return kAvx512Kernels; }

}  // namespace qtune::detail
