// The rowdot form of the 64-channel AVX-512 VNNI depthwise tiles: one vpdpbusd per kernel row of a
// 3-wide kernel, where the dot4 form (dwconv_avx512vnni.cc) and the general form take one product
// instruction per tap. Lane c of the activation operand holds the bytes of the kernel row's three
// input pixels for channel c and a fourth byte whose weight is 0,
//   (x[j][c], x[j + 1][c], x[j + 2][c], x[j + 3][c]) . (w0[c], w1[c], w2[c], 0),
// built from plain 64-byte loads by unpacks within 128-bit lanes: bytes of inputs j and j + 1
// interleaved into pairs (vpunpck[lh]bw), pairs j and j + 2 into quads (vpunpck[lh]wd). A pair
// serves two output pixels (pixel p takes pairs S p and S p + 2), so at stride 1 or 2 a tile of
// 64 channels costs per pixel and kernel row four products and six unpacks, where dot4 takes
// twelve products. The lane order this gives is dw_rowdot_channel's, and the packs of the epilogue
// (vpackssdw, vpack[su]swb) restore channel order. Layers of exactly 32 channels at stride 1 run
// in pixel pairs: a 64-byte load then holds two adjacent pixels, the block two output pixels.
// Preconditions (DepthwiseConv checks them): dw_rowdot_applies, fused requantization to u8 or s8,
// w - zb within int8; s8 activations are flipped to u8 (x ^ 0x80 = x + 128, compensated in the
// bias term).
#include "x86/avx512vnni/avx512_vector.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include "dwconv/dwconv_template.h"
#include "x86/avx512vnni/dwconv_rowdot_avx512vnni.h"

namespace qtune::detail {
namespace {

template <int WidthTile, bool Signed>
struct DwRowDotKernel {
  using Vec = __m512i;
  static constexpr std::size_t kBlockBytes = 64, kRowWeightBytes = 4 * kBlockBytes;

  static Vec dot(Vec acc, Vec x, Vec w) {
    asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));  // in place: see Avx512Vector::madd
    return acc;
  }

  // W blocks: output pixels ow0 + b (channels c0 .. c0 + 63) or, in pixel pairs, ow0 + 2b and
  // ow0 + 2b + 1 (all 32 channels). S is the stride; input X_j of a kernel row is the 64 bytes at
  // the j-th input pixel of the tile's first output pixel, from channel c0.
  template <int W, int S, bool Pairs, bool Affine>
  static void tile(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0, std::size_t c0) {
    static_assert(S == 1 || S == 2);
    static_assert(!Pairs || S == 1);
    constexpr int kStep = Pairs ? 2 : S;          // input pixels from one block to the next
    constexpr int kInputs = (W - 1) * kStep + 3;  // X_0 .. X_top: the last block's three
    constexpr int kTop = kInputs - 1;
    constexpr int kPixels = Pairs ? 2 * W : W;
    Vec acc[W][4];
    QTUNE_DW_UNROLL for (int b = 0; b < W; ++b) {
      QTUNE_DW_UNROLL for (int k = 0; k < 4; ++k) acc[b][k] = _mm512_setzero_si512();
    }
    const std::size_t offset = Affine ? (ow0 - a.affine_begin) * a.pixel_step + c0 : c0;
    const std::size_t pixel = a.channels;  // input bytes per pixel
    const std::uint8_t* const* pixel_taps = a.taps + ow0 * a.tap_count;
    const std::size_t row_bytes = (Pairs ? 1 : a.channels / kBlockBytes) * kRowWeightBytes;
    const std::uint8_t* weights = a.weights_bytes + c0 / kBlockBytes * kRowWeightBytes;
    const Vec flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (std::size_t t = 0; t < a.tap_count; t += 3) {
      Vec w[4];
      QTUNE_DW_UNROLL for (int k = 0; k < 4; ++k) w[k] = _mm512_loadu_si512(weights + t / 3 * row_bytes + 64 * k);
      // Input pixel q of the tile through the table: tap q - p S of the output pixel p that uses it.
      const auto table = [&](int q) {
        const int p = q / S < kPixels - 1 ? q / S : kPixels - 1;
        return pixel_taps[static_cast<std::size_t>(p) * a.tap_count + t + static_cast<std::size_t>(q - p * S)];
      };
      Vec x[kInputs];
      const std::uint8_t* row = Affine ? a.affine_taps[t] + offset : nullptr;
      QTUNE_DW_UNROLL for (int j = 0; j < kInputs; ++j) {
        if constexpr (Affine) {
          x[j] = _mm512_loadu_si512(row + static_cast<std::size_t>(j) * pixel);
        } else if constexpr (Pairs) {
          const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table(j)));
          const __m256i second = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table(j + 1)));
          x[j] = _mm512_inserti64x4(_mm512_castsi256_si512(first), second, 1);
        } else {
          x[j] = _mm512_loadu_si512(table(j) + offset);
        }
        if constexpr (Signed) x[j] = _mm512_xor_si512(x[j], flip);
      }
      // Pairs at j = kStep b and kStep b + 2 (every j at stride 1, the even ones at 2); the top
      // one pairs X_top with itself, its second byte meeting weight 0, so that no tile reads past
      // its last input (the end of the tensor for the last row).
      Vec lo[kInputs], hi[kInputs];
      QTUNE_DW_UNROLL for (int j = 0; j < kInputs; j += kStep) {
        const Vec next = j == kTop ? x[j] : x[j + 1];
        lo[j] = _mm512_unpacklo_epi8(x[j], next);
        hi[j] = _mm512_unpackhi_epi8(x[j], next);
      }
      QTUNE_DW_UNROLL for (int b = 0; b < W; ++b) {
        const int j = kStep * b;
        acc[b][0] = dot(acc[b][0], _mm512_unpacklo_epi16(lo[j], lo[j + 2]), w[0]);
        acc[b][1] = dot(acc[b][1], _mm512_unpackhi_epi16(lo[j], lo[j + 2]), w[1]);
        acc[b][2] = dot(acc[b][2], _mm512_unpacklo_epi16(hi[j], hi[j + 2]), w[2]);
        acc[b][3] = dot(acc[b][3], _mm512_unpackhi_epi16(hi[j], hi[j + 2]), w[3]);
      }
    }
    QTUNE_DW_UNROLL for (int k = 0; k < 4; ++k) {
      const Vec bias = _mm512_loadu_si512(a.bias_term + c0 + 16 * k);
      QTUNE_DW_UNROLL for (int b = 0; b < W; ++b) acc[b][k] = _mm512_add_epi32(acc[b][k], bias);
    }
    with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() { write<Mode, W, Pairs>(a, plan, acc, ow0, c0); });
  }

  // Requantizes every block (values land in [qmin, qmax], so the saturating packs keep them) and
  // stores each as 64 bytes in channel order: per 128-bit lane, vpackssdw of accumulators 0 and 1
  // gives channels 16 L + 0..7 and of 2 and 3 16 L + 8..15, which the byte pack joins.
  template <RoundingMode Mode, int W, bool Pairs>
  QTUNE_FORCE_INLINE static void write(const DwRowArgs& a, const RequantConstants& plan,
                                       const Vec (&acc)[W][4], std::size_t ow0, std::size_t c0) {
    Vec bytes[W];
    const bool u8 = a.out_type == DType::u8;
    QTUNE_DW_UNROLL for (int b = 0; b < W; ++b) {
      Vec q[4];
      QTUNE_DW_UNROLL for (int k = 0; k < 4; ++k) {
        q[k] = avx512::requantize16<Mode, /*OriginFolded=*/true>(acc[b][k], plan, c0 + 16 * k);
      }
      const Vec low = _mm512_packs_epi32(q[0], q[1]), high = _mm512_packs_epi32(q[2], q[3]);
      bytes[b] = u8 ? _mm512_packus_epi16(low, high) : _mm512_packs_epi16(low, high);
    }
    QTUNE_DW_UNROLL for (int b = 0; b < W; ++b) {
      const std::size_t first_pixel = ow0 + static_cast<std::size_t>(Pairs ? 2 * b : b);
      _mm512_storeu_si512(static_cast<std::uint8_t*>(a.out) + first_pixel * a.channels + c0, bytes[b]);
    }
  }

  // Whole 64-channel blocks in the rowdot form; the rest 16 at a time in the general form.
  template <int W, int S, bool Affine>
  static void blocks(const DwRowArgs& a, const RequantConstants& plan, std::size_t ow0) {
    using General = DwTiles<Avx512Vector, Signed>;
    std::size_t c = 0;
    for (; c + kBlockBytes <= a.channels; c += kBlockBytes) tile<W, S, false, Affine>(a, plan, ow0, c);
    for (; c + 16 <= a.channels; c += 16) General::template step<W, 1, false, Affine>(a, plan, ow0, c, 16);
    if (c < a.channels) General::template step<W, 1, true, Affine>(a, plan, ow0, c, a.channels - c);
  }

  static void run(const DwRowArgs& a) {
    const RequantConstants plan = *a.plan;  // a local copy (see RequantConstants)
    if (dw_rowdot_pixel_pairs(a.channels)) {
      // Tiles of 2 W pixels (dw_rowdot_walk_width); dw_rowdot_applies keeps rows >= 2 pixels wide.
      dw_walk_row<2 * WidthTile>(a, [&]<int Pixels, bool Affine>(std::size_t ow0) {
        if constexpr (Pixels >= 2) tile<Pixels / 2, 1, true, Affine>(a, plan, ow0, 0);
      });
    } else if (a.stride_w == 1) {
      dw_walk_row<WidthTile>(a, [&]<int W, bool Affine>(std::size_t ow0) { blocks<W, 1, Affine>(a, plan, ow0); });
    } else {
      dw_walk_row<WidthTile>(a, [&]<int W, bool Affine>(std::size_t ow0) { blocks<W, 2, Affine>(a, plan, ow0); });
    }
  }
};

}  // namespace

template <int WidthTile>
void dw_rowdot_row(const DwRowArgs& args) {
  if (args.signed_input) {
    DwRowDotKernel<WidthTile, true>::run(args);
  } else {
    DwRowDotKernel<WidthTile, false>::run(args);
  }
}

template void dw_rowdot_row<1>(const DwRowArgs&);
template void dw_rowdot_row<2>(const DwRowArgs&);
template void dw_rowdot_row<4>(const DwRowArgs&);

}  // namespace qtune::detail
